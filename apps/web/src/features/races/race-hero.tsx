import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Course, Race } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { formatDateTime, startTimeEditorValue } from '../../lib/format';
import { formatLength } from '../../i18n/format';
import { paths } from '../../lib/paths';
import { directorRacesApi } from './api';
import { checkedRaceBody } from './race-body';
import { RaceFields, type RaceFieldValues } from './race-fields';
import { StagePill } from './race-status';
import { t, useI18n } from '../../i18n';

/** What the live stream has seen of the race since the page loaded (Start or End Race pressed meanwhile). */
export interface LiveProgress {
  started: boolean;
  finished: boolean;
}

/** The viewer's IANA time zone (e.g. Europe/Zurich), the one every displayed time is in. */
const viewerTimeZone = (): string =>
  Intl.DateTimeFormat().resolvedOptions().timeZone || t('raceHero.localTime');

const fieldsOf = (race: Race): RaceFieldValues => ({
  Name: race.Name,
  Description: race.Description ?? '',
  Location: race.Location ?? '',
  StartTime: startTimeEditorValue(race.StartTime),
  PublicDelayMin: String(race.PublicDelayMin ?? 0),
  TrailsPublic: race.TrailsPublic ?? true,
  RetentionDays: race.RetentionDays == null ? '' : String(race.RetentionDays),
});

/**
 * The race card at the top of the race screen: name, stage, start time, place, size and description. The owning
 * director edits, starts, ends and deletes the race here; each of these asks for confirmation first (except saving
 * an edit), then reloads the race through `onChanged`.
 */
export function RaceHero({
  race,
  course,
  runnerCount,
  owner,
  liveProgress,
  onChanged,
}: {
  race: Race;
  course: Course | null;
  runnerCount: number;
  owner: boolean;
  /** Given once the live stream has seen the race's phase: the stage pill follows it without a reload. */
  liveProgress?: LiveProgress;
  onChanged(): Promise<void>;
}) {
  const navigate = useNavigate();
  useI18n();
  const [editing, setEditing] = useState<RaceFieldValues | null>(null);
  // Why the last race action did nothing (the server's message): shown in the race card.
  const [error, setError] = useState<string | null>(null);
  const shown: Race = liveProgress
    ? {
        ...race,
        HasStarted: race.HasStarted || liveProgress.started,
        HasFinished: race.HasFinished || liveProgress.finished,
      }
    : race;

  async function save() {
    if (!editing) return;
    setError(null);
    const checked = await checkedRaceBody(editing);
    if (checked.error !== undefined) {
      setError(checked.error);
      return;
    }
    await directorRacesApi.update(race.RaceId, checked.body);
    setEditing(null);
    await onChanged();
  }

  async function change(text: string, action: () => Promise<unknown>) {
    if (!confirmed(text)) return;
    setError(null);
    await action().catch((err: unknown) => setError(failureMessage(err)));
    await onChanged();
  }

  async function remove() {
    if (!confirmed(CONFIRM.deleteRace)) return;
    setError(null);
    try {
      await directorRacesApi.remove(race.RaceId);
      navigate(paths.myRaces);
    } catch (err) {
      setError(failureMessage(err));
      await onChanged();
    }
  }

  return (
    <section className="card race-hero" aria-label={t('races.race')}>
      {editing ? (
        <form
          aria-label={t('raceHero.edit')}
          onSubmit={(e) => {
            e.preventDefault();
            save().catch((err: unknown) => setError(failureMessage(err)));
          }}
        >
          <h1 className="visually-hidden">{race.Name}</h1>
          <h2 className="edit-title">{t('raceHero.edit')}</h2>
          <RaceFields values={editing} onChange={setEditing} />
          <FormError message={error} />
          <div className="form-actions">
            <button type="submit" className="btn btn-primary">
              {t('common.save')}
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => {
                setError(null);
                setEditing(null);
              }}
            >
              {t('common.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <>
          <div className="hero-top">
            <h1 className="race-title">{race.Name}</h1>
            <StagePill race={shown} />
          </div>
          <dl className="hero-meta">
            <div>
              <dt>{t('races.startTime')}</dt>
              <dd data-testid="race-start">
                {race.StartTime ? (
                  <time dateTime={race.StartTime}>{formatDateTime(race.StartTime)}</time>
                ) : (
                  formatDateTime(race.StartTime)
                )}
              </dd>
            </div>
            <div>
              <dt>{t('races.location')}</dt>
              <dd data-testid="race-location">{race.Location || '-'}</dd>
            </div>
            <div>
              <dt>{t('requests.runners')}</dt>
              <dd>{runnerCount}</dd>
            </div>
            {course && (
              <div>
                <dt>{t('board.distance')}</dt>
                <dd>{formatLength(course.LengthM)}</dd>
              </div>
            )}
          </dl>
          {race.StartTime && (
            // A shared race link is opened around the world: say which clock the start time is on.
            <p className="muted time-zone-note" data-testid="time-zone-note">
              {t('raceHero.timeZone', { zone: viewerTimeZone() })}
            </p>
          )}
          {race.Description && (
            <p className="race-description" data-testid="race-description">
              {race.Description}
            </p>
          )}
          {owner && (
            <div className="toolbar" role="group" aria-label={t('raceHero.controls')}>
              <button
                type="button"
                className="btn"
                onClick={() => {
                  setError(null);
                  setEditing(fieldsOf(race));
                }}
              >
                {t('raceHero.editButton')}
              </button>
              {race.Approved && !race.HasStarted && (
                <button
                  type="button"
                  className="btn btn-primary"
                  onClick={() => void change(CONFIRM.startRace, () => directorRacesApi.start(race.RaceId))}
                >
                  {t('raceHero.start')}
                </button>
              )}
              {race.HasStarted && !race.HasFinished && (
                <button
                  type="button"
                  className="btn btn-primary"
                  onClick={() => void change(CONFIRM.endRace, () => directorRacesApi.end(race.RaceId))}
                >
                  {t('raceHero.end')}
                </button>
              )}
              <button type="button" className="btn btn-danger" onClick={() => void remove()}>
                {t('common.delete')}
              </button>
            </div>
          )}
          {owner && <FormError message={error} />}
        </>
      )}
    </section>
  );
}
