import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import type { Race } from '@racebeacon/domain/entities';
import { useAppConfig } from '../../lib/app-config';
import { liveApi } from './api';
import { LeaderboardTable } from './leaderboard-table';
import { racePhase } from './live-clock';
import {
  formatAgo,
  formatClock,
  formatKmValue,
  formatNextWaypoint,
  runnerLabel,
  STATUS_LABEL,
} from './live-format';
import { t, useI18n } from '../../i18n';
import { sortRows } from './live-store';
import type { CourseTrack } from './live-types';
import { useLiveRace, useNow } from './use-live-race';
import './live.css';

const LiveMap = lazy(() => import('./live-map'));

export type EmbedView = 'map' | 'leaderboard' | 'runner';

export interface LiveEmbedProps {
  race: Race;
  view: EmbedView;
  /** The runner of view=runner. */
  bib?: string;
  /** The full race page on this server (opened in a new tab: the host page stays where it is). */
  fullPageUrl: string;
}

/**
 * The live race made for an <iframe> on a race's own website (/embed/race/{id}?view=map|leaderboard|runner&bib=):
 * no site navigation, the race's name, one view, and a link to the full race page. Fed by the same SSE stream and
 * components as the race page (map, leaderboard), it fits from 320 to 1200 px wide.
 */
export function LiveEmbed({ race, view, bib, fullPageUrl }: LiveEmbedProps) {
  const config = useAppConfig();
  useI18n();
  const { state, status } = useLiveRace(race.RaceId);
  const [track, setTrack] = useState<CourseTrack | null>(null);
  const [followId, setFollowId] = useState<number | null>(null);
  const now = useNow(30_000);

  useEffect(() => {
    if (view === 'leaderboard') return;
    const ctrl = new AbortController();
    liveApi.courseTrack(race.RaceId, ctrl.signal).then(setTrack, (err: unknown) => {
      if (!ctrl.signal.aborted) console.warn('Could not load the course track:', err);
    });
    return () => ctrl.abort();
  }, [race.RaceId, view]);

  const rows = useMemo(() => sortRows(state.rows.values()), [state.rows]);
  const { clockStartedAt, clockStoppedAt, serverOffsetMs } = state;
  const clock = useMemo(
    () => ({ clockStartedAt, clockStoppedAt, serverOffsetMs }),
    [clockStartedAt, clockStoppedAt, serverOffsetMs],
  );
  const phase = racePhase(race, clock, state.updatedAt !== null);
  const runner = view === 'runner' && bib ? rows.find((r) => r.BibNumber === bib) : undefined;
  const shownFollow = view === 'runner' ? (runner?.RunnerId ?? null) : followId;
  const toggleFollow = (id: number) => setFollowId((cur) => (cur === id ? null : id));

  const map = (
    <Suspense fallback={<div className="live-map live-map--loading">{t('common.loadingMap')}</div>}>
      <LiveMap
        track={track}
        rows={runner ? [runner] : rows}
        trails={state.trails}
        followId={shownFollow}
        phase={phase}
        onSelect={view === 'runner' ? () => {} : toggleFollow}
        tileUrl={config.map.tileUrl}
        tileAttribution={config.map.tileAttribution}
      />
    </Suspense>
  );

  return (
    <main className="embed" data-view={view}>
      <header className="embed__head">
        <h1 className="embed__title">{race.Name}</h1>
        <p className="embed__status" role="status" data-status={status}>
          {phase === 'finished'
            ? t('live.finalResults')
            : status === 'live'
              ? t('live.title')
              : status === 'reconnecting'
                ? t('live.reconnecting')
                : t('live.connecting')}
        </p>
        <a className="embed__full" href={fullPageUrl} target="_blank" rel="noopener">
          {t('embed.fullPage')}
        </a>
      </header>
      {view === 'leaderboard' ? (
        <LeaderboardTable
          rows={rows}
          clock={clock}
          phase={phase}
          followId={followId}
          onSelect={toggleFollow}
        />
      ) : view === 'runner' ? (
        <>
          {runner ? (
            <section className="embed__runner" aria-label={t('board.runner')}>
              <h2>
                {runnerLabel(runner)} {runner.FirstName} {runner.LastName}
              </h2>
              <dl className="embed__facts">
                <div>
                  <dt>{t('runner.status')}</dt>
                  <dd>{STATUS_LABEL[runner.Status] ?? runner.Status}</dd>
                </div>
                <div>
                  <dt>{t('runner.rank')}</dt>
                  <dd>{runner.Rank ?? '–'}</dd>
                </div>
                <div>
                  <dt>{t('runner.distance')}</dt>
                  <dd>{formatKmValue(runner.DistanceKm)}</dd>
                </div>
                <div>
                  <dt>{t('runner.nextAid')}</dt>
                  <dd>{formatNextWaypoint(runner) ?? '–'}</dd>
                </div>
                <div>
                  <dt>{runner.Status === 'finished' ? t('runner.finished') : t('embed.expectedFinish')}</dt>
                  <dd>{formatClock(runner.Status === 'finished' ? runner.FinishTime : runner.EtaFinish)}</dd>
                </div>
                <div>
                  <dt>{t('board.lastSeen')}</dt>
                  <dd>{formatAgo(runner.LastPingTime, now)}</dd>
                </div>
              </dl>
            </section>
          ) : (
            <p className="embed__note">
              {state.updatedAt === null
                ? t('common.loading')
                : bib
                  ? t('runner.noSuchBib', { bib })
                  : t('embed.noRunner')}
            </p>
          )}
          {map}
        </>
      ) : (
        map
      )}
    </main>
  );
}
