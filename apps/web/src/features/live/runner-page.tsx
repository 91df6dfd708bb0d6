import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { sectionPaces } from '@racebeacon/domain/course';
import type { Checkpoint, Race, RunnerSplits } from '@racebeacon/domain/entities';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import { Link } from 'react-router';
import { useAppConfig } from '../../lib/app-config';
import { paths } from '../../lib/paths';
import { ElevationProfile } from './elevation-profile';
import { useFollowed } from './followed';
import { NotifyButton } from './notify-button';
import { racePhase, shownStatus } from './live-clock';
import {
  formatAgo,
  formatBattery,
  formatClock,
  formatDuration,
  formatEstimate,
  formatEtaRange,
  formatKmValue,
  formatNextWaypoint,
  formatPace,
  formatPercent,
  formatDistanceNumber,
  distanceUnit,
  runnerLabel,
  STATUS_LABEL,
} from './live-format';
import { t, useI18n } from '../../i18n';
import type { CourseTrack } from './live-types';
import { liveApi } from './api';
import { useLiveRace, useNow } from './use-live-race';
import './live.css';
import './story.css';

const LiveMap = lazy(() => import('./live-map'));

/**
 * /race/{raceId}/runner/{bib}: one runner — status, rank, distance, pace, ETA, battery and last fix, the splits per
 * checkpoint with each section's pace, the track on the map and on the elevation profile, a link to share and
 * Follow (kept in the browser: pinned at the top of the leaderboard and highlighted on the map).
 */
export function RunnerPage({ race, bib }: { race: Race; bib: string }) {
  const config = useAppConfig();
  useI18n();
  const { state } = useLiveRace(race.RaceId);
  const now = useNow(30_000);
  const [track, setTrack] = useState<CourseTrack | null>(null);
  const [splits, setSplits] = useState<RunnerSplits[] | null>(null);
  const [checkpoints, setCheckpoints] = useState<Checkpoint[]>([]);
  const [copied, setCopied] = useState(false);
  const { ids: followed, toggle } = useFollowed(race.RaceId);

  useEffect(() => {
    const ctrl = new AbortController();
    const warn = (what: string) => (err: unknown) => {
      if (!ctrl.signal.aborted) console.warn(`Could not load the ${what}:`, err);
    };
    liveApi.courseTrack(race.RaceId, ctrl.signal).then(setTrack, warn('course track'));
    liveApi.checkpoints(race.RaceId, ctrl.signal).then(setCheckpoints, warn('checkpoints'));
    return () => ctrl.abort();
  }, [race.RaceId]);

  const row: LeaderboardRow | undefined = useMemo(
    () => [...state.rows.values()].find((r) => (r.BibNumber ?? '') === bib),
    [state.rows, bib],
  );
  const lastPing = row?.LastPingTime ?? null;
  // Splits move when the runner passes a checkpoint: read again with each new fix of theirs.
  useEffect(() => {
    const ctrl = new AbortController();
    liveApi.splits(race.RaceId, ctrl.signal).then(setSplits, (err: unknown) => {
      if (!ctrl.signal.aborted) console.warn('Could not load the splits:', err);
    });
    return () => ctrl.abort();
  }, [race.RaceId, lastPing]);

  const phase = racePhase(
    race,
    { clockStartedAt: state.clockStartedAt, clockStoppedAt: state.clockStoppedAt },
    state.updatedAt !== null,
  );

  if (!row) {
    return (
      <section className="card runner-page">
        <p>{state.updatedAt === null ? t('runner.loading') : t('runner.noSuchBib', { bib })}</p>
        <Link to={paths.race(race.RaceId)}>{t('common.backToRace')}</Link>
      </section>
    );
  }

  const status = shownStatus(row.Status, phase);
  const battery = formatBattery(row.BatteryState);
  const mine = splits?.find((s) => s.RunnerId === row.RunnerId)?.Splits ?? [];
  const byId = new Map(checkpoints.map((c) => [c.CheckpointId, c]));
  const paces = sectionPaces(
    mine.map((s) => ({ checkpointId: s.CheckpointId, t: Date.parse(s.PassingTime) })),
    checkpoints.map((c) => ({ id: c.CheckpointId, distanceM: c.DistanceKm * 1000 })),
  );
  const paceInto = new Map(paces.map((p) => [p.toCheckpointId, p]));
  const trails = new Map([[row.RunnerId, state.trails.get(row.RunnerId) ?? []]]);
  const isFollowed = followed.has(row.RunnerId);
  const share = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      window.prompt(t('common.copyThisLink'), window.location.href);
    }
  };

  return (
    <section className="card runner-page" aria-labelledby="runner-title">
      <div className="runner-page__head">
        <h2 id="runner-title">
          {runnerLabel(row)} {row.FirstName} {row.LastName}
        </h2>
        <div className="runner-page__actions">
          <button
            type="button"
            className={isFollowed ? 'btn' : 'btn btn-secondary'}
            aria-pressed={isFollowed}
            onClick={() => toggle(row.RunnerId)}
          >
            {isFollowed ? t('runner.following') : t('runner.follow')}
          </button>
          <NotifyButton raceId={race.RaceId} runnerId={row.RunnerId} followed={followed} follow={toggle} />
          <button type="button" className="btn btn-secondary" onClick={() => void share()}>
            {copied ? t('common.linkCopied') : t('common.copyLink')}
          </button>
        </div>
      </div>
      <dl className="runner-page__facts">
        <div>
          <dt>{t('runner.status')}</dt>
          <dd data-testid="runner-status">
            <span className={`live-status live-status--${status}`}>{STATUS_LABEL[status] ?? status}</span>
          </dd>
        </div>
        <div>
          <dt>{t('runner.rank')}</dt>
          <dd data-testid="runner-rank">{row.Rank ?? '–'}</dd>
        </div>
        <div>
          <dt>{t('runner.distance')}</dt>
          <dd>
            {formatKmValue(row.DistanceKm)}
            {row.Percent !== null ? ` (${formatPercent(row.Percent)})` : ''}
          </dd>
        </div>
        <div>
          <dt>{t('runner.pace')}</dt>
          <dd>{formatPace(row.PaceSecondsPerKm)}</dd>
        </div>
        <div>
          <dt>{row.Status === 'finished' ? t('runner.finished') : t('runner.etaFinish')}</dt>
          <dd>
            {row.Status === 'finished'
              ? formatClock(row.FinishTime)
              : formatEtaRange(row.EtaFinish, row.EtaFinishEarliest, row.EtaFinishLatest)}
          </dd>
        </div>
        {row.Status !== 'finished' && formatNextWaypoint(row) ? (
          <div>
            <dt>{t('runner.nextAid')}</dt>
            <dd>{formatNextWaypoint(row)}</dd>
          </div>
        ) : null}
        {formatEstimate(row) ? (
          <div>
            <dt>{t('runner.nowNoFix')}</dt>
            <dd className="live-row__estimate" data-testid="runner-estimate">
              {formatEstimate(row)}
            </dd>
          </div>
        ) : null}
        <div>
          <dt>{t('runner.elapsed')}</dt>
          <dd>{formatDuration(row.ElapsedSeconds)}</dd>
        </div>
        <div>
          <dt>{t('runner.battery')}</dt>
          <dd className={battery?.low ? 'is-low' : undefined}>{battery?.text ?? '–'}</dd>
        </div>
        <div>
          <dt>{t('runner.lastFix')}</dt>
          <dd>
            {row.LastPingTime
              ? `${formatClock(row.LastPingTime)} (${formatAgo(row.LastPingTime, now)})`
              : '–'}
          </dd>
        </div>
      </dl>
      <h3>{t('runner.splits')}</h3>
      {checkpoints.length === 0 ? (
        <p className="live-muted">{t('runner.noCheckpoints')}</p>
      ) : (
        <div className="runner-page__scroll">
          <table className="runner-page__splits">
            <thead>
              <tr>
                <th scope="col">{t('runner.checkpoint')}</th>
                <th scope="col">{distanceUnit()}</th>
                <th scope="col">{t('runner.passed')}</th>
                <th scope="col" title={t('runner.sectionTitle')}>
                  {t('runner.section')}
                </th>
              </tr>
            </thead>
            <tbody>
              {checkpoints.map((c) => {
                const s = mine.find((x) => x.CheckpointId === c.CheckpointId);
                const p = paceInto.get(c.CheckpointId);
                return (
                  <tr key={c.CheckpointId} data-checkpoint={c.Name}>
                    <td>{byId.get(c.CheckpointId)?.Name}</td>
                    <td>{formatDistanceNumber(c.DistanceKm, 1)}</td>
                    <td>
                      {s ? formatClock(s.PassingTime) : '–'}
                      {s?.Source === 'check-in'
                        ? t('runner.viaCheckin')
                        : s?.Estimated
                          ? t('runner.estimatedPass')
                          : ''}
                    </td>
                    <td>
                      {p
                        ? `${formatPace(p.paceSecPerKm)} (${formatDuration(Math.round(p.durationMs / 1000))})`
                        : '–'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <h3>{t('runner.track')}</h3>
      <Suspense fallback={<div className="live-map live-map--loading">{t('common.loadingMap')}</div>}>
        <LiveMap
          track={track}
          rows={[row]}
          trails={trails}
          followId={row.RunnerId}
          phase={phase}
          onSelect={() => undefined}
          tileUrl={config.map.tileUrl}
          tileAttribution={config.map.tileAttribution}
        />
      </Suspense>
      {track?.HasCourse ? (
        <ElevationProfile
          track={track}
          rows={[row]}
          followId={row.RunnerId}
          phase={phase}
          onSelect={() => undefined}
        />
      ) : null}
      <p>
        <Link to={paths.race(race.RaceId)}>{t('common.backToRace')}</Link>
      </p>
    </section>
  );
}
