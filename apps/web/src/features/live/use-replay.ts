import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReplayAnswer } from '@racebeacon/domain/course';
import { storyApi } from './story-api';
import { t } from '../../i18n';

/**
 * The replay of a race: a moment between the start and now (or the end), the race as spectators saw it then (from
 * the server's replay), playback at ×60 or ×600, and the moment in the page's address (`?t=` ISO) so a link opens the
 * race there. `at` null: live (or, for a finished race, its final results).
 */

export type ReplaySpeed = 60 | 600;

/** Trail length asked for while replaying: enough for the lines on the map, small enough to move quickly. */
const REPLAY_TRAIL = 30;
/** Slider moves closer together than this share one request. */
const DEBOUNCE_MS = 120;
const TICK_MS = 1000;

export interface ReplayControl {
  at: number | null;
  answer: ReplayAnswer | null;
  loading: boolean;
  error: string | null;
  speed: ReplaySpeed | null;
  seek(ms: number): void;
  play(speed: ReplaySpeed): void;
  pause(): void;
  goLive(): void;
}

/** The times a replay can show: from the start (null before one is known) to the end, or now while racing. */
export function replayRange(
  startIso: string | null | undefined,
  stoppedIso: string | null | undefined,
  nowMs: number,
): { from: number | null; to: number } {
  const from = startIso ? Date.parse(startIso) : NaN;
  const stop = stoppedIso ? Date.parse(stoppedIso) : NaN;
  const to = Number.isFinite(stop) ? stop : nowMs;
  return Number.isFinite(from) ? { from, to: Math.max(from, to) } : { from: null, to };
}

/** The moment in the address (`?t=`), or null. */
export function momentFromSearch(search: string): number | null {
  const t = new URLSearchParams(search).get('t');
  if (!t) return null;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : null;
}

/** The address of this page at a moment (null: without one). */
export function urlAtMoment(href: string, atMs: number | null): string {
  const url = new URL(href);
  if (atMs === null) url.searchParams.delete('t');
  else url.searchParams.set('t', new Date(atMs).toISOString());
  return url.toString();
}

export function useReplay(raceId: number, range: { from: number | null; to: number }): ReplayControl {
  const [at, setAt] = useState<number | null>(() => momentFromSearch(window.location.search));
  const [answer, setAnswer] = useState<ReplayAnswer | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [speed, setSpeed] = useState<ReplaySpeed | null>(null);
  const inFlight = useRef<AbortController | null>(null);
  const rangeRef = useRef(range);
  rangeRef.current = range;

  // The moment in the address, without a navigation (the page stays as it is).
  useEffect(() => {
    const next = urlAtMoment(window.location.href, at);
    if (next !== window.location.href) window.history.replaceState(window.history.state, '', next);
  }, [at]);

  // Fetch the race at the moment (debounced; a newer moment aborts an older request).
  useEffect(() => {
    if (at === null) {
      setAnswer(null);
      setLoading(false);
      return;
    }
    const timer = setTimeout(() => {
      inFlight.current?.abort();
      const ctrl = new AbortController();
      inFlight.current = ctrl;
      setLoading(true);
      storyApi.replay(raceId, at, REPLAY_TRAIL, ctrl.signal).then(
        (a) => {
          if (ctrl.signal.aborted) return;
          setAnswer(a);
          setError(null);
          setLoading(false);
        },
        (err: unknown) => {
          if (ctrl.signal.aborted) return;
          setLoading(false);
          setError(err instanceof Error ? err.message : t('replay.loadFailed'));
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [raceId, at]);

  useEffect(() => () => inFlight.current?.abort(), []);

  // Playback: the moment moves by speed × the time passed, and stops at the end.
  useEffect(() => {
    if (speed === null) return;
    const timer = setInterval(() => {
      setAt((cur) => {
        const { from, to } = rangeRef.current;
        const next = (cur ?? from ?? to) + speed * TICK_MS;
        if (next >= to) {
          setSpeed(null);
          return to;
        }
        return next;
      });
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [speed]);

  const seek = useCallback((ms: number) => {
    const { from, to } = rangeRef.current;
    setAt(Math.min(to, Math.max(from ?? ms, ms)));
  }, []);
  const play = useCallback((s: ReplaySpeed) => {
    setAt((cur) => {
      const { from, to } = rangeRef.current;
      // Playing from the end (or live) starts again from the start.
      return cur === null || cur >= to ? (from ?? to) : cur;
    });
    setSpeed(s);
  }, []);
  const pause = useCallback(() => setSpeed(null), []);
  const goLive = useCallback(() => {
    setSpeed(null);
    setAt(null);
  }, []);

  return { at, answer: at === null ? null : answer, loading, error, speed, seek, play, pause, goLive };
}
