import { Link } from 'react-router';
import { useAppConfig } from '../../lib/app-config';
import { LogoMark } from '../../components/logo';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';

/** The four selling points shown on the home page. */
export const SELLING_POINTS = [
  'live tracking updates every 2.5 minutes',
  'works remotely with no cell service',
  'real-time race leaderboard',
  'easy setup and configuration',
];

export function HomePage() {
  const { productName } = useAppConfig();
  useDocumentTitle(null);
  return (
    <div className="home">
      <section className="welcome card" aria-labelledby="welcome-title">
        <div className="welcome-text">
          <h1 id="welcome-title" className="welcome-title">
            {productName}
            <span className="welcome-subtitle">live</span>
          </h1>
          <p className="welcome-lead">Welcome to {productName} - the ultimate race tracking solution!</p>
          <ul className="selling-points">
            {SELLING_POINTS.map((point) => (
              <li key={point}>
                <span className="check" aria-hidden="true">
                  ✓
                </span>
                <span className="point-text">{point}</span>
              </li>
            ))}
          </ul>
          <p>
            <Link to={paths.races} className="btn btn-primary btn-lg">
              Browse races
            </Link>
          </p>
        </div>
        <div className="logo-box" data-testid="logo-box">
          <LogoMark size={120} title={`${productName} logo`} />
          <span className="logo-box-name">{productName}</span>
        </div>
      </section>
    </div>
  );
}
