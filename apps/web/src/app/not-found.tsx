import { Link } from 'react-router';
import { EmptyState } from '../components/page-state';
import { paths } from '../lib/paths';

export function NotFoundPage() {
  return (
    <EmptyState title="This page does not exist.">
      <Link to={paths.home}>Go to the home page</Link>
    </EmptyState>
  );
}
