import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { paths } from '../lib/paths';
import { useI18n } from '../i18n';

/**
 * The router's error screen: shown when a screen throws while rendering or loading, instead of a blank page. The link
 * reloads the document, so the app starts again from a clean state.
 */
export function ErrorScreen() {
  const error = useRouteError();
  const { t } = useI18n();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : null;
  return (
    <main className="container main error-screen">
      <h1>{t('error.title')}</h1>
      <p>{t('error.lead')}</p>
      {detail && (
        <details className="error-detail">
          <summary>{t('error.details')}</summary>
          <p>{detail}</p>
        </details>
      )}
      <p>
        <Link to={paths.home} className="btn btn-primary" reloadDocument>
          {t('error.home')}
        </Link>
      </p>
    </main>
  );
}
