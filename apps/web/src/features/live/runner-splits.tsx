import { useEffect, useState } from 'react';
import { sectionPaces } from '@racebeacon/domain/course';
import type { Checkpoint, RunnerSplits } from '@racebeacon/domain/entities';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import { liveApi } from './api';
import { distanceUnit, formatClock, formatDistanceNumber, formatDuration, formatPace } from './live-format';
import { t, useI18n } from '../../i18n';
import './runner-splits.css';

/**
 * A leaderboard row's checkpoint line ("Aid 1 · 10:32", the last checkpoint passed and when; a cutoff-risk badge),
 * and its Splits button: one click shows each checkpoint's passing time (GPS, estimated between two fixes, or an
 * aid station's check-in) and the pace of each section.
 */
export function RunnerCheckpoints({ raceId, row }: { raceId: number; row: LeaderboardRow }) {
  const [open, setOpen] = useState(false);
  useI18n();
  const passed = row.LastCheckpoint
    ? `${row.LastCheckpoint} · ${formatClock(row.LastCheckpointTime ?? null)}`
    : null;
  if (!passed && !row.CutoffRisk && row.Status === 'not-started') return null;
  return (
    <span className="live-row__checkpoints" onClick={(e) => e.stopPropagation()}>
      {passed ? (
        <span className="live-row__passed" data-testid="last-checkpoint" title={t('splits.lastPassed')}>
          {passed}
        </span>
      ) : null}
      {row.CutoffRisk ? (
        <span className="live-cutoff-risk" data-testid="cutoff-risk" title={t('splits.cutoffRiskTitle')}>
          {t('splits.cutoffRisk')}
        </span>
      ) : null}
      {passed ? (
        <button
          type="button"
          className="live-row__splits-toggle"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? t('splits.hide') : t('splits.title')}
        </button>
      ) : null}
      {open ? <SplitsPanel raceId={raceId} runnerId={row.RunnerId} /> : null}
    </span>
  );
}

function SplitsPanel({ raceId, runnerId }: { raceId: number; runnerId: number }) {
  const [data, setData] = useState<{ splits: RunnerSplits | null; checkpoints: Checkpoint[] } | null>(null);
  const [failed, setFailed] = useState(false);
  useI18n();
  useEffect(() => {
    let live = true;
    Promise.all([liveApi.splits(raceId), liveApi.checkpoints(raceId)])
      .then(([all, checkpoints]) => {
        if (live) setData({ splits: all.find((s) => s.RunnerId === runnerId) ?? null, checkpoints });
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [raceId, runnerId]);
  if (failed) return <span className="live-muted">{t('splits.loadFailed')}</span>;
  if (!data) return <span className="live-muted">{t('splits.loading')}</span>;
  const byId = new Map(data.checkpoints.map((c) => [c.CheckpointId, c]));
  const splits = data.splits?.Splits ?? [];
  const paces = sectionPaces(
    splits.map((s) => ({ checkpointId: s.CheckpointId, t: Date.parse(s.PassingTime) })),
    data.checkpoints.map((c) => ({ id: c.CheckpointId, distanceM: c.DistanceKm * 1000 })),
  );
  const paceTo = new Map(paces.map((p) => [p.toCheckpointId, p]));
  return (
    <table className="live-splits" data-testid="runner-splits">
      <caption className="visually-hidden">{t('splits.title')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('splits.checkpoint')}</th>
          <th scope="col" className="live-splits__km">
            {distanceUnit()}
          </th>
          <th scope="col">{t('splits.passed')}</th>
          <th scope="col" className="live-splits__section">
            {t('splits.section')}
          </th>
          <th scope="col">{t('splits.pace')}</th>
        </tr>
      </thead>
      <tbody>
        {splits.map((s) => {
          const cp = byId.get(s.CheckpointId);
          const p = paceTo.get(s.CheckpointId);
          return (
            <tr key={s.CheckpointId}>
              <th scope="row">{cp?.Name ?? `#${s.CheckpointId}`}</th>
              <td className="live-splits__km">{cp ? formatDistanceNumber(cp.DistanceKm, 1) : '–'}</td>
              <td
                title={
                  s.Source === 'check-in'
                    ? t('splits.viaCheckin')
                    : s.Estimated
                      ? t('splits.betweenFixes')
                      : t('splits.gps')
                }
              >
                {formatClock(s.PassingTime)}
                {s.Source === 'check-in' ? ' ✓' : s.Estimated ? ' ~' : ''}
              </td>
              <td className="live-splits__section">
                {p ? formatDuration(Math.round(p.durationMs / 1000)) : '–'}
              </td>
              <td>{p ? formatPace(p.paceSecPerKm) : '–'}</td>
            </tr>
          );
        })}
        {splits.length === 0 ? (
          <tr>
            <td colSpan={5} className="live-muted">
              {t('splits.noneYet')}
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
