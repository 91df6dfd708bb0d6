import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { paths } from '../../lib/paths';
import { byRelevance } from '../../lib/race-order';
import { useResource } from '../../lib/use-resource';
import { openRacesApi } from './api';
import { publicFlags, RaceCard } from './race-card';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useI18n } from '../../i18n';

/** /races: every public (approved) race. */
export function RacesPage() {
  const { t } = useI18n();
  useDocumentTitle(t('races.title'));
  const races = useResource(() => openRacesApi.list(), []);
  return (
    <>
      <PageHeader title={t('races.title')}>{t('races.lead')}</PageHeader>
      {races.data === undefined ? (
        races.error ? (
          <EmptyState title={t('races.loadFailed')}>{t('races.tryAgain')}</EmptyState>
        ) : (
          <PageSpinner />
        )
      ) : races.data.length === 0 ? (
        <EmptyState title={t('races.none')}>{t('races.noneLead')}</EmptyState>
      ) : (
        <div className="card-grid">
          {byRelevance(races.data).map((race) => (
            <RaceCard key={race.RaceId} race={race} to={paths.race(race.RaceId)} fields={publicFlags(race)} />
          ))}
        </div>
      )}
    </>
  );
}
