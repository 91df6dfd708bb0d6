import { Link } from 'react-router';
import { EmptyState } from '../components/page-state';
import { paths } from '../lib/paths';
import { useI18n } from '../i18n';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <EmptyState title={t('notFound.title')}>
      <Link to={paths.home}>{t('notFound.home')}</Link>
    </EmptyState>
  );
}
