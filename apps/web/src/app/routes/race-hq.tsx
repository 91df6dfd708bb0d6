import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import type { Race } from '@racebeacon/domain/entities';
import type { ApiFailure } from '../../lib/api-client';
import { isOwner, useAuth } from '../../lib/auth';
import { paths } from '../../lib/paths';
import { EmptyState, PageSpinner } from '../../components/page-state';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useResource } from '../../lib/use-resource';
import { directorRacesApi, openRacesApi } from '../../features/races/api';
import { t, useI18n } from '../../i18n';

// The HQ (alerts, stream, Leaflet map) is its own chunk: nobody else's first screen pays for it.
const RaceHqPanel = lazy(() => import('../../features/hq').then((m) => ({ default: m.RaceHqPanel })));

/**
 * /race/{id}/hq: the race's safety alerts for its director or an admin (signed-in route; the server answers 403/404
 * to anyone else, and this screen says so without calling the alert API). The race comes from the public endpoint,
 * or the director's for a race not approved yet.
 */
export function RaceHqRoute() {
  const { raceId } = useParams();
  const id = Number(raceId);
  const auth = useAuth();
  useI18n();
  const race = useResource<Race>(async () => {
    if (!Number.isInteger(id) || id <= 0) throw { status: 404, error: 'not_found', message: 'No such race.' };
    try {
      return await openRacesApi.get(id);
    } catch (err) {
      if ((err as ApiFailure).status !== 404) throw err;
      return directorRacesApi.get(id);
    }
  }, [id]);
  const allowed = !!race.data && (isOwner(auth.account, race.data) || auth.isAdmin);
  // The title is the HQ panel's once it shows (it counts the open alerts); until then, or instead, this one.
  if (!race.data) {
    if (race.error) return <NoAccess />;
    return (
      <>
        <Title text={t('hq.title')} />
        <PageSpinner />
      </>
    );
  }
  if (!allowed) return <NoAccess race={race.data} />;
  return (
    <div className="race-detail">
      <nav aria-label={t('runner.breadcrumb')} className="breadcrumb">
        <Link to={paths.myRaces}>{t('nav.myRaces')}</Link>
        <span aria-hidden="true"> / </span>
        <Link to={race.data.Approved ? paths.race(id) : paths.unapprovedRace(id)}>{race.data.Name}</Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{t('hq.title')}</span>
      </nav>
      <Suspense fallback={<PageSpinner />}>
        <RaceHqPanel race={race.data} canEditSettings />
      </Suspense>
    </div>
  );
}

function Title({ text }: { text: string }) {
  useDocumentTitle(text);
  return null;
}

function NoAccess({ race }: { race?: Race }) {
  return (
    <EmptyState title={t('hq.deniedTitle')}>
      <p role="alert">
        <Title text={t('hq.unavailable')} />
        {t('hq.denied')}{' '}
        {race?.Approved ? (
          <Link to={paths.race(race.RaceId)}>{t('common.backToRace')}</Link>
        ) : (
          <Link to={paths.races}>{t('common.seeAllRaces')}</Link>
        )}
      </p>
    </EmptyState>
  );
}
