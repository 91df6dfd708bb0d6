import { NavLink, Outlet, Link, ScrollRestoration } from 'react-router';
import { SignInProblem, useAuth } from '../lib/auth';
import { useAppConfig } from '../lib/app-config';
import { paths } from '../lib/paths';
import { SpinnerOverlay, useBusy } from './spinner';
import { LogoMark } from '../components/logo';
import { useI18n } from '../i18n';
import { LanguageSwitch, UnitsSwitch } from '../i18n/switches';

function Nav() {
  const auth = useAuth();
  const { t } = useI18n();
  const signedIn = auth.status === 'active' && !!auth.account;
  const cls = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-link active' : 'nav-link');
  return (
    <nav aria-label={t('nav.label')} className="nav">
      <div className="nav-links">
        <NavLink to={paths.home} end className={cls}>
          {t('nav.home')}
        </NavLink>
        <NavLink to={paths.races} className={cls}>
          {t('nav.races')}
        </NavLink>
        {signedIn && (
          <NavLink to={paths.myRaces} className={cls}>
            {t('nav.myRaces')}
          </NavLink>
        )}
        {signedIn && auth.isAdmin && (
          <>
            <NavLink to={paths.raceRequests} className={cls}>
              {t('nav.raceRequests')}
            </NavLink>
            <NavLink to={paths.devices} className={cls}>
              {t('nav.devices')}
            </NavLink>
          </>
        )}
      </div>
      <div className="nav-auth">
        {signedIn ? (
          <button type="button" className="btn btn-ghost nav-btn" onClick={() => void auth.logout()}>
            {t('nav.logout')}
          </button>
        ) : (
          <>
            <button type="button" className="btn btn-ghost nav-btn" onClick={() => void auth.login()}>
              {t('nav.login')}
            </button>
            <button type="button" className="btn btn-primary nav-btn" onClick={() => void auth.signup()}>
              {t('nav.signup')}
            </button>
          </>
        )}
      </div>
    </nav>
  );
}

/**
 * Whether another site shows this page in a frame. The server already forbids that (frame-ancestors 'none') for every
 * page but the embeds; this stops a framed embed from navigating, inside its frame, to the rest of the app.
 */
function framedByAnotherSite(): boolean {
  if (window.self === window.top) return false;
  try {
    return window.top!.location.origin !== window.location.origin;
  } catch {
    return true; // another origin's window: reading its location throws
  }
}

export function Layout() {
  const { productName } = useAppConfig();
  const auth = useAuth();
  const busy = useBusy();
  const { t } = useI18n();
  if (framedByAnotherSite()) {
    return (
      <main className="container main">
        <p>
          {t('layout.framed')}{' '}
          <a href={window.location.href} target="_blank" rel="noopener">
            {t('layout.openInNewTab')}
          </a>
        </p>
      </main>
    );
  }
  return (
    <>
      <a className="skip-link" href="#main">
        {t('layout.skipToContent')}
      </a>
      <div className="app-shell" inert={busy} aria-busy={busy}>
        <header className="site-header">
          <div className="container header-inner">
            <Link to={paths.home} className="brand">
              <LogoMark size={28} />
              <span>{productName}</span>
            </Link>
            {auth.status === 'active' && auth.account && (
              <span className="account-chip" title={auth.account.email}>
                {auth.account.name ?? auth.account.email ?? t('layout.signedIn')}
                {auth.isAdmin && <span className="badge badge-accent">{t('layout.admin')}</span>}
              </span>
            )}
          </div>
          <div className="container">
            <Nav />
          </div>
        </header>
        <main id="main" className="container main" tabIndex={-1}>
          <SignInProblem />
          <Outlet />
        </main>
        <footer className="site-footer">
          <div className="container footer-inner">
            <span>
              © {new Date().getFullYear()} {productName}
            </span>
            <span className="footer-links">
              <Link to={paths.privacy}>{t('footer.privacy')}</Link>
              <Link to={paths.terms}>{t('footer.terms')}</Link>
            </span>
            <span className="footer-settings">
              <LanguageSwitch />
              <UnitsSwitch />
            </span>
          </div>
        </footer>
      </div>
      <SpinnerOverlay busy={busy} />
      <ScrollRestoration />
    </>
  );
}
