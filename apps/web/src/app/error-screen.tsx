import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { paths } from '../lib/paths';

/**
 * The router's error screen: shown when a screen throws while rendering or loading, instead of a blank page. The link
 * reloads the document, so the app starts again from a clean state.
 */
export function ErrorScreen() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : null;
  return (
    <main className="container main error-screen">
      <h1>Unexpected Application Error!</h1>
      <p>Something went wrong while showing this page. Going back to the home page usually helps.</p>
      {detail && (
        <details className="error-detail">
          <summary>Technical details</summary>
          <p>{detail}</p>
        </details>
      )}
      <p>
        <Link to={paths.home} className="btn btn-primary" reloadDocument>
          Back to the home page
        </Link>
      </p>
    </main>
  );
}
