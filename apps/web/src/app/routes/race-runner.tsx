import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import type { Race } from '@racebeacon/domain/entities';
import { EmptyState, PageSpinner } from '../../components/page-state';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useResource } from '../../lib/use-resource';
import { useI18n } from '../../i18n';
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
  const { t } = useI18n();
  useDocumentTitle(race.data ? `${bib} – ${race.data.Name}` : t('runner.documentTitle'));
  if (!race.data) {
    if (race.error)
      return (
        <EmptyState title={t('races.notFound')}>
          {t('races.notFoundLead')} <Link to={paths.races}>{t('common.seeAllRaces')}</Link>
        </EmptyState>
      );
    return <PageSpinner />;
  }
  return (
    <div className="race-detail">
      <nav aria-label={t('runner.breadcrumb')} className="breadcrumb">
        <Link to={paths.races}>{t('nav.races')}</Link>
        <span aria-hidden="true"> / </span>
        <Link to={paths.race(race.data.RaceId)}>{race.data.Name}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{t('runner.bib', { bib })}</span>
      </nav>
      <Suspense fallback={<PageSpinner />}>
        <RunnerPage race={race.data} bib={bib} />
      </Suspense>
    </div>
  );
}
