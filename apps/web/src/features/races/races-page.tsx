import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { paths } from '../../lib/paths';
import { byRelevance } from '../../lib/race-order';
import { useResource } from '../../lib/use-resource';
import { openRacesApi } from './api';
import { publicFlags, RaceCard } from './race-card';
import { useDocumentTitle } from '../../lib/use-document-title';

/** /races: every public (approved) race. */
export function RacesPage() {
  useDocumentTitle('Races');
  const races = useResource(() => openRacesApi.list(), []);
  return (
    <>
      <PageHeader title="Races">Follow a race live, look up its course and its runners.</PageHeader>
      {races.data === undefined ? (
        races.error ? (
          <EmptyState title="Races could not be loaded.">Please try again in a moment.</EmptyState>
        ) : (
          <PageSpinner />
        )
      ) : races.data.length === 0 ? (
        <EmptyState title="No races yet.">Public races appear here once they are approved.</EmptyState>
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
