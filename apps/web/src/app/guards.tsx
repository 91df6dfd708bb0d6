import { Navigate, Outlet } from 'react-router';
import { useAuth } from './auth-adapter';
import { paths } from './paths';
import { PageSpinner } from '../components/page-state';

/** Signed-in routes: a signed-out visitor is sent to / (seed-spec section 2). */
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
