import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import type { Race } from '@racebeacon/domain/entities';
import { EmptyState, PageSpinner } from '../../components/page-state';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useResource } from '../../lib/use-resource';
import { openRacesApi } from '../../features/races/api';

// The live view's chunk (the map loads after it).
const RunnerPage = lazy(() =>
  import('../../features/live/runner-page').then((m) => ({ default: m.RunnerPage })),
);

/** /race/{raceId}/runner/{bib}: the public race (races feature) and one runner's page (live feature). */
export function RaceRunnerRoute() {
  const { raceId, bib = '' } = useParams();
  const id = Number(raceId);
  const race = useResource<Race>(async () => {
    if (!Number.isInteger(id) || id <= 0) throw { status: 404, error: 'not_found', message: 'No such race.' };
    return openRacesApi.get(id);
  }, [id]);
  useDocumentTitle(race.data ? `${bib} – ${race.data.Name}` : 'Runner');
  if (!race.data) {
    if (race.error)
      return (
        <EmptyState title="This race could not be found.">
          It may have been removed, or it is not public yet. <Link to={paths.races}>See all races</Link>
        </EmptyState>
      );
    return <PageSpinner />;
  }
  return (
    <div className="race-detail">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={paths.races}>Races</Link>
        <span aria-hidden="true"> / </span>
        <Link to={paths.race(race.data.RaceId)}>{race.data.Name}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">Bib {bib}</span>
      </nav>
      <Suspense fallback={<PageSpinner />}>
        <RunnerPage race={race.data} bib={bib} />
      </Suspense>
    </div>
  );
}
