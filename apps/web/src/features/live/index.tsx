import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import type { Race } from '@racebeacon/domain/entities';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import { useAppConfig } from '../../lib/app-config';
import { t, useI18n } from '../../i18n';
import { ElevationProfile } from './elevation-profile';
import { LeaderboardTable } from './leaderboard-table';
import {
  formatBattery,
  formatClock,
  formatDateTime,
  formatKmValue,
  formatNextWaypoint,
  runnerLabel,
} from './live-format';
import { racePhase, type RacePhase } from './live-clock';
import { sortRows } from './live-store';
import { liveApi } from './api';
import type { CourseTrack } from './live-types';
import { useLiveRace, useNow, type ConnectionStatus } from './use-live-race';
import { FlowChart } from './flow-chart';
import { pinFollowed, useFollowed } from './followed';
import { ReplayBar } from './replay-bar';
import { replayRange, useReplay } from './use-replay';
import './story.css';
import './live.css';

// Leaflet and its CSS load after the panel itself, so even the race screen does not wait for the map code.
const LiveMap = lazy(() => import('./live-map'));

export interface LiveRacePanelProps {
  race: Race;
  /** Told when the stream moves the race to another phase (Start/End Race seen live), so the page can follow. */
  onPhaseChange?: (phase: RacePhase) => void;
  /**
   * The viewer is the race's director or an admin, signed in: the stream is opened with a stream ticket and shows the
   * race live (no public delay, hidden runners' dots) where the public sees it delayed or masked.
   */
  live?: boolean;
}

/** The live race on the race detail screen: map, leaderboard and elevation profile, fed by one SSE stream. */
export function LiveRacePanel({ race, onPhaseChange, live = false }: LiveRacePanelProps) {
  const config = useAppConfig();
  useI18n();
  const { state, status } = useLiveRace(race.RaceId, live);
  const [track, setTrack] = useState<CourseTrack | null>(null);
  const [followId, setFollowId] = useState<number | null>(null);

  useEffect(() => {
    const ctrl = new AbortController();
    liveApi.courseTrack(race.RaceId, ctrl.signal).then(setTrack, (err: unknown) => {
      if (!ctrl.signal.aborted) console.warn('Could not load the course track:', err);
    });
    return () => ctrl.abort();
  }, [race.RaceId]);

  const rows = useMemo(() => sortRows(state.rows.values()), [state.rows]);
  const { clockStartedAt, clockStoppedAt, serverOffsetMs } = state;
  const clock = useMemo(
    () => ({ clockStartedAt, clockStoppedAt, serverOffsetMs }),
    [clockStartedAt, clockStoppedAt, serverOffsetMs],
  );
  const phase = racePhase(race, clock, state.updatedAt !== null);
  useEffect(() => {
    onPhaseChange?.(phase);
  }, [phase, onPhaseChange]);
  // Replay: the race at a past moment (the slider, or ?t= in the address) instead of live; followed runners (kept in
  // the browser) pinned at the top of the leaderboard and highlighted on the map.
  const pinned = useFollowed(race.RaceId);
  const tick = useNow(30_000);
  const range = useMemo(
    () =>
      replayRange(
        clockStartedAt ?? race.ClockStartedAt ?? race.StartTime,
        clockStoppedAt ?? race.ClockStoppedAt ?? null,
        tick,
      ),
    [clockStartedAt, clockStoppedAt, race.ClockStartedAt, race.ClockStoppedAt, race.StartTime, tick],
  );
  const replay = useReplay(race.RaceId, range);
  const shown = useMemo(() => {
    const a = replay.answer;
    if (!a) return { rows, trails: state.trails, clock, phase };
    const replayPhase: RacePhase = phase === 'finished' && a.At === a.To ? 'finished' : 'live';
    return {
      rows: sortRows(a.Leaderboard),
      trails: new Map(a.Positions.map((p) => [p.RunnerId, p.Trail])),
      clock: { ...clock, clockStoppedAt: a.At },
      phase: replayPhase,
    };
  }, [replay.answer, rows, state.trails, clock, phase]);
  const boardRows = useMemo(() => pinFollowed(shown.rows, pinned.ids), [shown.rows, pinned.ids]);
  const replayAtMs = replay.answer ? Date.parse(replay.answer.At) : null;
  // While replaying, the followed runner as they were at that moment.
  const followed =
    followId === null
      ? undefined
      : replay.answer
        ? shown.rows.find((r) => r.RunnerId === followId)
        : state.rows.get(followId);
  const toggleFollow = (id: number) => setFollowId((cur) => (cur === id ? null : id));

  return (
    <section className="card live-panel" aria-labelledby="live-title">
      <div className="live-panel__head" data-phase={phase}>
        <h2 id="live-title">{phase === 'finished' ? t('live.finalResults') : t('live.title')}</h2>
        <PhaseLine
          phase={phase}
          status={status}
          startTime={race.StartTime}
          stoppedAt={clockStoppedAt ?? race.ClockStoppedAt ?? null}
        />
      </div>
      {range.from !== null && phase !== 'upcoming' ? (
        <ReplayBar control={replay} from={range.from} to={range.to} finished={phase === 'finished'} />
      ) : null}
      {followed ? (
        <div className="live-follow" role="status" aria-live="polite">
          <span>
            {t('live.following', {
              runner: `${runnerLabel(followed)} ${followed.FirstName} ${followed.LastName}`,
            })}
          </span>
          <FollowedDetails row={followed} phase={phase} />
          <button type="button" onClick={() => setFollowId(null)}>
            {t('live.stopFollowing')}
          </button>
        </div>
      ) : null}
      <Suspense fallback={<div className="live-map live-map--loading">{t('common.loadingMap')}</div>}>
        <LiveMap
          track={track}
          rows={shown.rows}
          trails={shown.trails}
          followId={followId}
          phase={shown.phase}
          pinnedIds={pinned.ids}
          onSelect={toggleFollow}
          tileUrl={config.map.tileUrl}
          tileAttribution={config.map.tileAttribution}
        />
      </Suspense>
      {track && track.HasCourse ? (
        <ElevationProfile
          track={track}
          rows={shown.rows}
          followId={followId}
          phase={shown.phase}
          onSelect={toggleFollow}
        />
      ) : track ? (
        <p className="live-muted">{t('live.noCourse')}</p>
      ) : null}
      <LeaderboardTable
        rows={boardRows}
        clock={shown.clock}
        phase={shown.phase}
        followId={followId}
        pinnedIds={pinned.ids}
        runnerPageRaceId={race.RaceId}
        onSelect={toggleFollow}
        raceId={race.RaceId}
        atMs={replayAtMs}
      />
      {phase !== 'upcoming' ? (
        <FlowChart
          raceId={race.RaceId}
          live={phase === 'live'}
          followed={pinned.ids}
          atMs={replayAtMs}
          onPick={toggleFollow}
        />
      ) : null}
    </section>
  );
}

const CONNECTION_LABEL = {
  live: 'live.connected',
  connecting: 'live.connecting',
  reconnecting: 'live.reconnecting',
  closed: 'live.closed',
  final: 'live.final',
} as const satisfies Record<ConnectionStatus, string>;

/**
 * What a spectator needs to know about the race's state: when it starts, that tracking is live (and whether the
 * connection is up), or that it is over and these are the results. A finished race shows no live connection status.
 */
function PhaseLine(props: {
  phase: RacePhase;
  status: ConnectionStatus;
  startTime: string | null;
  stoppedAt: string | null;
}) {
  const { phase, status, startTime, stoppedAt } = props;
  if (phase === 'finished') {
    return (
      <p className="live-phase live-phase--finished" role="status" data-status="final">
        {stoppedAt ? t('live.finishedAt', { time: formatClock(stoppedAt) }) : t('live.finished')}
      </p>
    );
  }
  return (
    <>
      {phase === 'upcoming' ? (
        <p className="live-phase live-phase--upcoming">
          {!startTime
            ? t('live.notStartedYet')
            : Date.parse(startTime) > Date.now()
              ? t('live.starts', { time: formatDateTime(startTime) })
              : t('live.waitingForStart', { time: formatDateTime(startTime) })}
        </p>
      ) : null}
      <p className="live-muted">{t('live.updatesEvery')}</p>
      <p className={`live-connection live-connection--${status}`} role="status" data-status={status}>
        {t(CONNECTION_LABEL[status])}
      </p>
    </>
  );
}

/** Where the followed runner is and what comes next: distance, next aid station, finish ETA, battery. */
function FollowedDetails({ row, phase }: { row: LeaderboardRow; phase: RacePhase }) {
  const over = row.Status === 'finished' || phase === 'finished';
  const nextAid = over ? null : formatNextWaypoint(row);
  const parts: string[] = [];
  if (row.DistanceKm !== null) parts.push(formatKmValue(row.DistanceKm));
  if (nextAid) parts.push(t('live.next', { place: nextAid }));
  if (row.Status === 'finished') parts.push(t('live.finishedTime', { time: formatClock(row.FinishTime) }));
  else if (!over && row.EtaFinish) parts.push(t('live.finishTime', { time: formatClock(row.EtaFinish) }));
  const battery = formatBattery(row.BatteryState);
  if (battery) parts.push(t('live.battery', { battery: battery.text }));
  return parts.length ? <span className="live-follow__details">{parts.join(' · ')}</span> : null;
}
