import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { paths } from './paths';

/** The router's error screen (seed-spec section 8). */
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
