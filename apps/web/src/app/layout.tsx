import { NavLink, Outlet, Link, ScrollRestoration } from 'react-router';
import { useAuth } from '../lib/auth';
import { useAppConfig } from '../lib/app-config';
import { paths } from '../lib/paths';
import { SpinnerOverlay, useBusy } from './spinner';
import { LogoMark } from '../components/logo';

function Nav() {
  const auth = useAuth();
  const signedIn = auth.status === 'active' && !!auth.account;
  const cls = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-link active' : 'nav-link');
  return (
    <nav aria-label="Main" className="nav">
      <div className="nav-links">
        <NavLink to={paths.home} end className={cls}>
          Home
        </NavLink>
        <NavLink to={paths.races} className={cls}>
          Races
        </NavLink>
        {signedIn && (
          <NavLink to={paths.myRaces} className={cls}>
            My Races
          </NavLink>
        )}
        {signedIn && auth.isAdmin && (
          <>
            <NavLink to={paths.raceRequests} className={cls}>
              Race Requests
            </NavLink>
            <NavLink to={paths.devices} className={cls}>
              Devices
            </NavLink>
          </>
        )}
      </div>
      <div className="nav-auth">
        {signedIn ? (
          <button type="button" className="btn btn-ghost nav-btn" onClick={() => void auth.logout()}>
            Logout
          </button>
        ) : (
          <>
            <button type="button" className="btn btn-ghost nav-btn" onClick={() => void auth.login()}>
              Director Login
            </button>
            <button type="button" className="btn btn-primary nav-btn" onClick={() => void auth.signup()}>
              Director SignUp
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
  if (framedByAnotherSite()) {
    return (
      <main className="container main">
        <p>
          This page cannot be shown inside another website.{' '}
          <a href={window.location.href} target="_blank" rel="noopener">
            Open it in a new tab
          </a>
        </p>
      </main>
    );
  }
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
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
                {auth.account.name ?? auth.account.email ?? 'Signed in'}
                {auth.isAdmin && <span className="badge badge-accent">Admin</span>}
              </span>
            )}
          </div>
          <div className="container">
            <Nav />
          </div>
        </header>
        <main id="main" className="container main" tabIndex={-1}>
          <Outlet />
        </main>
        <footer className="site-footer">
          <div className="container footer-inner">
            <span>
              © {new Date().getFullYear()} {productName}
            </span>
            <span className="footer-links">
              <Link to={paths.privacy}>Privacy policy</Link>
              <Link to={paths.terms}>Terms of service</Link>
            </span>
          </div>
        </footer>
      </div>
      <SpinnerOverlay busy={busy} />
      <ScrollRestoration />
    </>
  );
}
