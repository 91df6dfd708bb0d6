import { Navigate, Outlet } from 'react-router';
import { useAuth } from '../lib/auth';
import { paths } from '../lib/paths';
import { PageSpinner } from '../components/page-state';

/** Signed-in routes: a signed-out visitor is sent to the home page, where the sign-in button is. */
export function RequireSignedIn() {
  const auth = useAuth();
  if (auth.status === 'interaction') return <PageSpinner />;
  if (auth.status !== 'active' || !auth.account) return <Navigate to={paths.home} replace />;
  return <Outlet />;
}

/** Admin routes: anyone but an admin is sent to /. The server enforces the same rule on every call. */
export function RequireAdmin() {
  const auth = useAuth();
  if (auth.status === 'interaction') return <PageSpinner />;
  if (auth.status !== 'active' || !auth.account || !auth.isAdmin) return <Navigate to={paths.home} replace />;
  return <Outlet />;
}
