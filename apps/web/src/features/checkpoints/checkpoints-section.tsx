import { useEffect, useId, useState } from 'react';
import type { Checkpoint } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import { checkpointsApi } from './api';
import { t, useI18n } from '../../i18n';
import { distanceUnit, formatDistanceNumber, formatWeekdayTime } from '../../i18n/format';
import './checkpoints.css';

/** "2026-06-01T08:30" in the browser's time zone, for a datetime-local input. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const cutoffText = (iso: string | null) => formatWeekdayTime(iso);

/**
 * The race's checkpoints (start, the course's named waypoints, finish) with their distance and cutoff. The race's
 * director (or an admin) sets or clears a cutoff; the leaderboard flags runners expected after it.
 */
export function CheckpointsSection({
  raceId,
  canManage,
  publicRace,
  courseKey,
}: {
  raceId: number;
  canManage: boolean;
  /** Approved: anyone may read the list. */
  publicRace: boolean;
  /** Changes when the course is uploaded or removed: the checkpoints are read again. */
  courseKey: number | null;
}) {
  const id = useId();
  useI18n();
  const [list, setList] = useState<Checkpoint[] | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const read = canManage
      ? checkpointsApi.listForDirector(raceId)
      : publicRace
        ? checkpointsApi.listPublic(raceId)
        : null;
    read?.then((l) => live && setList(l)).catch(() => live && setList([]));
    return () => {
      live = false;
    };
  }, [raceId, canManage, publicRace, courseKey]);

  if (!list || list.length === 0) return null;

  async function save(cp: Checkpoint, cutoff: string | null) {
    setError(null);
    try {
      const updated = await checkpointsApi.setCutoff(raceId, cp.CheckpointId, cutoff);
      setList((l) => l?.map((c) => (c.CheckpointId === updated.CheckpointId ? updated : c)) ?? null);
      setEditing(null);
    } catch (err) {
      setError(failureMessage(err));
    }
  }

  return (
    <section
      className="card checkpoints-card"
      aria-labelledby={`${id}-title`}
      data-testid="checkpoints-section"
    >
      <div className="section-head">
        <h2 id={`${id}-title`}>
          {t('course.checkpoints')} <span className="count">{list.length}</span>
        </h2>
      </div>
      <FormError message={error} />
      <table
        className={`table checkpoints-table${canManage ? ' responsive-table' : ''}`}
        aria-labelledby={`${id}-title`}
      >
        <thead>
          <tr>
            <th scope="col">{t('splits.checkpoint')}</th>
            <th scope="col">{distanceUnit()}</th>
            <th scope="col">{t('checkpoints.cutoff')}</th>
            {canManage && (
              <th scope="col">
                <span className="visually-hidden">{t('runners.actions')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {list.map((cp) => (
            <tr key={cp.CheckpointId} data-testid="checkpoint-row">
              <th scope="row" data-label={t('splits.checkpoint')}>
                {cp.Name}
              </th>
              <td className="num" data-label={distanceUnit()}>
                {formatDistanceNumber(cp.DistanceKm, 1)}
              </td>
              <td data-label={t('checkpoints.cutoff')}>
                {editing === cp.CheckpointId ? (
                  <form
                    className="cutoff-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (value) void save(cp, new Date(value).toISOString());
                    }}
                  >
                    <input
                      type="datetime-local"
                      aria-label={t('checkpoints.cutoffAt', { name: cp.Name })}
                      value={value}
                      onChange={(e) => setValue(e.target.value)}
                      required
                      autoFocus
                    />
                    <button type="submit" className="btn btn-small btn-primary">
                      {t('common.save')}
                    </button>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      onClick={() => setEditing(null)}
                    >
                      {t('common.cancel')}
                    </button>
                  </form>
                ) : (
                  <time dateTime={cp.CutoffTime ?? undefined}>{cutoffText(cp.CutoffTime)}</time>
                )}
              </td>
              {canManage && (
                <td className="row-actions">
                  {editing !== cp.CheckpointId && (
                    <button
                      type="button"
                      className="btn btn-small"
                      onClick={() => {
                        setValue(toLocalInput(cp.CutoffTime));
                        setEditing(cp.CheckpointId);
                      }}
                    >
                      {cp.CutoffTime ? t('checkpoints.change') : t('checkpoints.set')}
                    </button>
                  )}
                  {cp.CutoffTime && editing !== cp.CheckpointId ? (
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      onClick={() => void save(cp, null)}
                    >
                      {t('checkpoints.clear')}
                    </button>
                  ) : null}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
