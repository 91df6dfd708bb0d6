import { lazy, Suspense, useCallback, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Course, PublicRunner, Race } from '@racebeacon/domain';
import { isOwner, useAuth } from '../../app/auth-adapter';
import { paths } from '../../app/paths';
import { EmptyState, PageSpinner } from '../../components/page-state';
import { failureMessage, FormError } from '../../components/form-error';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { formatDateTime, formatKm, fromLocalInput, startTimeEditorValue } from '../../lib/format';
import { useResource } from '../../lib/use-resource';
import { CourseSection } from '../course/course-section';
import { courseApi } from '../course/api';
import { RunnersSection } from '../runners/runners-section';
import { runnersApi } from '../runners/api';
import { directorRacesApi, openRacesApi } from './api';
import { RaceFields, type RaceFieldValues } from './race-fields';
import { StagePill } from './race-status';
import { useDocumentTitle } from '../../lib/use-document-title';
import type { RacePhase } from '../live/live-clock';

// The live map and leaderboard are a separate chunk: the first screen never pays for the map code.
const LiveRacePanel = lazy(() => import('../live').then((m) => ({ default: m.LiveRacePanel })));

/** The race as the live stream sees it: started/finished follow Start and End Race as they happen. */
function withLivePhase(race: Race, phase: RacePhase): Race {
  return {
    ...race,
    HasStarted: race.HasStarted || phase !== 'upcoming',
    HasFinished: race.HasFinished || phase === 'finished',
  };
}

interface RaceView {
  race: Race;
  course: Course | null;
  runners: PublicRunner[];
}

/** The viewer's IANA time zone (e.g. Europe/Zurich), the one every displayed time is in. */
const viewerTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';

const fieldsOf = (race: Race): RaceFieldValues => ({
  Name: race.Name,
  Description: race.Description ?? '',
  Location: race.Location ?? '',
  StartTime: startTimeEditorValue(race.StartTime),
});

/**
 * /race/{id} (public, approved) and /race/unapproved/{id} (director endpoints). The owning director gets the
 * controls; every change asks for confirmation where the spec says so, then reloads the race.
 */
export function RaceDetailPage({ unapproved }: { unapproved: boolean }) {
  const { raceId } = useParams();
  const id = Number(raceId);
  const auth = useAuth();
  const navigate = useNavigate();
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

  const [editing, setEditing] = useState<RaceFieldValues | null>(null);
  // Why the last race action did nothing (the server's message): shown in the race card.
  const [error, setError] = useState<string | null>(null);
  // What the live stream says about the race's phase (End Race pressed while the page is open): the header pill
  // follows it without reloading the page.
  const [live, setLive] = useState<{ raceId: number; phase: RacePhase } | null>(null);
  const onPhaseChange = useCallback((phase: RacePhase) => setLive({ raceId: id, phase }), [id]);
  useDocumentTitle(view.data?.race.Name ?? (view.error ? 'Race not found' : 'Race'));

  if (!view.data) {
    if (view.error)
      return (
        <EmptyState title="This race could not be found.">
          It may have been removed, or it is not public yet. <Link to={paths.races}>See all races</Link>
        </EmptyState>
      );
    return <PageSpinner />;
  }

  const { race, course, runners } = view.data;
  const owner = isOwner(auth.account, race);
  const reload = view.reload;

  async function save() {
    if (!editing) return;
    setError(null);
    await directorRacesApi.update(race.RaceId, {
      ...race,
      Name: editing.Name.trim(),
      Description: editing.Description,
      Location: editing.Location,
      StartTime: fromLocalInput(editing.StartTime),
    });
    setEditing(null);
    await reload();
  }

  async function change(text: string, action: () => Promise<unknown>) {
    if (!confirmed(text)) return;
    setError(null);
    await action().catch((err: unknown) => setError(failureMessage(err)));
    await reload();
  }

  async function remove() {
    if (!confirmed(CONFIRM.deleteRace)) return;
    setError(null);
    try {
      await directorRacesApi.remove(race.RaceId);
      navigate(paths.myRaces);
    } catch (err) {
      setError(failureMessage(err));
      await reload();
    }
  }

  return (
    <div className="race-detail">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        {/* The owner came from (and goes back to) My Races; everyone else from the public list. */}
        <Link to={unapproved || owner ? paths.myRaces : paths.races}>
          {unapproved || owner ? 'My Races' : 'Races'}
        </Link>
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{race.Name}</span>
      </nav>

      {!race.Approved && (
        <p className="notice" role="note">
          This race is waiting for an administrator's approval. Only you can see it until then. You can
          already upload the course and add runners; tracking devices are handed to runners once it is
          approved.
        </p>
      )}

      <section className="card race-hero" aria-label="Race">
        {editing ? (
          <form
            aria-label="Edit race"
            onSubmit={(e) => {
              e.preventDefault();
              save().catch((err: unknown) => setError(failureMessage(err)));
            }}
          >
            <h1 className="visually-hidden">{race.Name}</h1>
            <h2 className="edit-title">Edit race</h2>
            <RaceFields values={editing} onChange={setEditing} />
            <FormError message={error} />
            <div className="form-actions">
              <button type="submit" className="btn btn-primary">
                Save
              </button>
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => {
                  setError(null);
                  setEditing(null);
                }}
              >
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <>
            <div className="hero-top">
              <h1 className="race-title">{race.Name}</h1>
              <StagePill race={live?.raceId === race.RaceId ? withLivePhase(race, live.phase) : race} />
            </div>
            <dl className="hero-meta">
              <div>
                <dt>StartTime</dt>
                <dd data-testid="race-start">
                  {race.StartTime ? (
                    <time dateTime={race.StartTime}>{formatDateTime(race.StartTime)}</time>
                  ) : (
                    formatDateTime(race.StartTime)
                  )}
                </dd>
              </div>
              <div>
                <dt>Location</dt>
                <dd data-testid="race-location">{race.Location || '-'}</dd>
              </div>
              <div>
                <dt>Runners</dt>
                <dd>{runners.length}</dd>
              </div>
              {course && (
                <div>
                  <dt>Distance</dt>
                  <dd>{formatKm(course.LengthM)}</dd>
                </div>
              )}
            </dl>
            {race.StartTime && (
              // A shared race link is opened around the world: say which clock the start time is on.
              <p className="muted time-zone-note" data-testid="time-zone-note">
                Times are shown in your time zone ({viewerTimeZone()}).
              </p>
            )}
            {race.Description && (
              <p className="race-description" data-testid="race-description">
                {race.Description}
              </p>
            )}
            {owner && (
              <div className="toolbar" role="group" aria-label="Race director controls">
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    setError(null);
                    setEditing(fieldsOf(race));
                  }}
                >
                  Edit
                </button>
                {race.Approved && !race.HasStarted && (
                  <button
                    type="button"
                    className="btn btn-primary"
                    onClick={() => void change(CONFIRM.startRace, () => directorRacesApi.start(race.RaceId))}
                  >
                    Start Race
                  </button>
                )}
                {race.HasStarted && !race.HasFinished && (
                  <button
                    type="button"
                    className="btn btn-primary"
                    onClick={() => void change(CONFIRM.endRace, () => directorRacesApi.end(race.RaceId))}
                  >
                    End Race
                  </button>
                )}
                <button type="button" className="btn btn-danger" onClick={() => void remove()}>
                  Delete
                </button>
              </div>
            )}
            {owner && <FormError message={error} />}
          </>
        )}
      </section>

      <CourseSection raceId={race.RaceId} course={course} canManage={owner} onChanged={reload} />

      {race.Approved && (
        <Suspense
          fallback={
            <div className="card live-panel" role="status">
              <p className="muted">Loading the live view…</p>
            </div>
          }
        >
          <LiveRacePanel race={race} course={course} runners={runners} onPhaseChange={onPhaseChange} />
        </Suspense>
      )}

      <RunnersSection
        raceId={race.RaceId}
        runners={runners}
        canManage={owner}
        canAssignDevices={owner && race.Approved}
        onChanged={reload}
      />
    </div>
  );
}
