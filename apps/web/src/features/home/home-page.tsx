import { Link } from 'react-router';
import { useAppConfig } from '../../lib/app-config';
import { LogoMark } from '../../components/logo';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useI18n } from '../../i18n';

/** The four selling points shown on the home page (catalogue keys). */
export const SELLING_POINTS = ['home.point1', 'home.point2', 'home.point3', 'home.point4'] as const;

export function HomePage() {
  const { productName } = useAppConfig();
  useDocumentTitle(null);
  const { t } = useI18n();
  return (
    <div className="home">
      <section className="welcome card" aria-labelledby="welcome-title">
        <div className="welcome-text">
          <h1 id="welcome-title" className="welcome-title">
            {productName}
            <span className="welcome-subtitle">{t('home.subtitle')}</span>
          </h1>
          <p className="welcome-lead">{t('home.welcome', { product: productName })}</p>
          <ul className="selling-points">
            {SELLING_POINTS.map((point) => (
              <li key={point}>
                <span className="check" aria-hidden="true">
                  ✓
                </span>
                <span className="point-text">{t(point)}</span>
              </li>
            ))}
          </ul>
          <p>
            <Link to={paths.races} className="btn btn-primary btn-lg">
              {t('home.browse')}
            </Link>
          </p>
        </div>
        <div className="logo-box" data-testid="logo-box">
          <LogoMark size={120} title={t('home.logo', { product: productName })} />
          <span className="logo-box-name">{productName}</span>
        </div>
      </section>
    </div>
  );
}
