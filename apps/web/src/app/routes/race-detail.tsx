import { lazy, Suspense, useCallback, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { Course, PublicRunner, Race } from '@racebeacon/domain/entities';
import { isOwner, useAuth } from '../../lib/auth';
import { paths } from '../../lib/paths';
import { EmptyState, PageSpinner } from '../../components/page-state';
import { EmbedSnippet } from '../../components/embed-snippet';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useResource } from '../../lib/use-resource';
import { useI18n } from '../../i18n';
import { CheckpointsSection } from '../../features/checkpoints/checkpoints-section';
import { courseApi } from '../../features/course/api';
import { CourseSection } from '../../features/course/course-section';
import { directorDevicesApi } from '../../features/devices/api';
import type { RacePhase } from '../../features/live/live-clock';
import { directorRacesApi, openRacesApi } from '../../features/races/api';
import { RaceHero, type LiveProgress } from '../../features/races/race-hero';
import { runnersApi } from '../../features/runners/api';
import { ResultsCsvLink } from '../../features/runners/runner-import';
import { RunnersSection } from '../../features/runners/runners-section';

// The live map and leaderboard are a separate chunk: the first screen never pays for the map code.
const LiveRacePanel = lazy(() => import('../../features/live').then((m) => ({ default: m.LiveRacePanel })));
// The director's check-in links: a small chunk only owners and admins load.
const CheckinLinksSection = lazy(() =>
  import('../../features/checkin/director').then((m) => ({ default: m.CheckinLinksSection })),
);

/** Where the live stream has seen the race get to: the stage pill follows Start and End Race as they happen. */
const progressOf = (phase: RacePhase): LiveProgress => ({
  started: phase !== 'upcoming',
  finished: phase === 'finished',
});

interface RaceView {
  race: Race;
  course: Course | null;
  runners: PublicRunner[];
}

/**
 * /race/{id} (public, approved) and /race/unapproved/{id} (director endpoints): one screen built from four features,
 * the race itself, its course, the live view and the runners. The owning director gets the controls in each.
 */
export function RaceDetailPage({ unapproved }: { unapproved: boolean }) {
  const { raceId } = useParams();
  const id = Number(raceId);
  const auth = useAuth();
  const accountId = auth.account?.id ?? null;

  const view = useResource<RaceView>(async () => {
    if (!Number.isInteger(id) || id <= 0) throw { status: 404, error: 'not_found', message: 'No such race.' };
    const race = unapproved ? await directorRacesApi.get(id) : await openRacesApi.get(id);
    // The owner reads through the director endpoints: they include the device each runner holds.
    const asDirector = unapproved || (accountId !== null && accountId === race.DirectorId);
    const [course, runners] = await Promise.all([
      asDirector ? courseApi.getForDirector(id) : courseApi.getPublic(id),
      asDirector ? runnersApi.listForDirector(id) : runnersApi.listPublic(id),
    ]);
    return { race, course, runners };
  }, [id, unapproved, accountId]);

  // What the live stream says about the race's phase (End Race pressed while the page is open): the header pill
  // follows it without reloading the page.
  const [live, setLive] = useState<{ raceId: number; phase: RacePhase } | null>(null);
  const onPhaseChange = useCallback((phase: RacePhase) => setLive({ raceId: id, phase }), [id]);
  const { t } = useI18n();
  useDocumentTitle(view.data?.race.Name ?? (view.error ? t('races.notFoundShort') : t('races.race')));

  if (!view.data) {
    if (view.error)
      return (
        <EmptyState title={t('races.notFound')}>
          {t('races.notFoundLead')} <Link to={paths.races}>{t('common.seeAllRaces')}</Link>
        </EmptyState>
      );
    return <PageSpinner />;
  }

  const { race, course, runners } = view.data;
  const owner = isOwner(auth.account, race);
  const reload = view.reload;

  return (
    <div className="race-detail">
      <nav aria-label={t('runner.breadcrumb')} className="breadcrumb">
        {/* The owner came from (and goes back to) My Races; everyone else from the public list. */}
        <Link to={unapproved || owner ? paths.myRaces : paths.races}>
          {unapproved || owner ? t('nav.myRaces') : t('nav.races')}
        </Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{race.Name}</span>
      </nav>

      {!race.Approved && (
        <p className="notice" role="note">
          {t('races.awaitingNotice')}
        </p>
      )}

      <RaceHero
        race={race}
        course={course}
        runnerCount={runners.length}
        owner={owner}
        liveProgress={live?.raceId === race.RaceId ? progressOf(live.phase) : undefined}
        onChanged={reload}
      />

      {owner || auth.isAdmin ? (
        <p className="race-hq-link">
          <Link to={paths.raceHq(race.RaceId)} className="btn btn-secondary">
            {t('hq.title')}
          </Link>
          <span className="muted">{t('hq.linkLead')}</span>
        </p>
      ) : null}

      <CourseSection raceId={race.RaceId} course={course} canManage={owner} onChanged={reload} />
      <CheckpointsSection
        raceId={race.RaceId}
        canManage={owner || auth.isAdmin}
        publicRace={race.Approved}
        courseKey={course?.CourseId ?? null}
      />

      {(owner || auth.isAdmin) && course ? (
        <Suspense fallback={null}>
          <CheckinLinksSection raceId={race.RaceId} />
        </Suspense>
      ) : null}

      {race.Approved && (
        <Suspense
          fallback={
            <div className="card live-panel" role="status">
              <p className="muted">{t('live.loadingView')}</p>
            </div>
          }
        >
          {/* The director and admins see it live (a stream ticket), where the public may see it delayed or masked. */}
          <LiveRacePanel race={race} onPhaseChange={onPhaseChange} live={owner || auth.isAdmin} />
        </Suspense>
      )}
      {race.Approved && <ResultsCsvLink raceId={race.RaceId} />}

      {race.Approved && <EmbedSnippet raceId={race.RaceId} raceName={race.Name} />}

      <RunnersSection
        raceId={race.RaceId}
        runners={runners}
        canManage={owner}
        deviceActions={owner && race.Approved ? directorDevicesApi : undefined}
        onChanged={reload}
      />
    </div>
  );
}
