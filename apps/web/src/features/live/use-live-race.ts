import { useEffect, useReducer, useState } from 'react';
import type { LiveCompactDelta, LiveCompactSnapshot } from '@racebeacon/domain/live';
import {
  applyCompactDelta,
  applyCompactSnapshot,
  applySnapshot,
  applyUpdate,
  emptyLiveState,
  type LiveState,
} from './live-store';
import type { SnapshotMessage, UpdateMessage } from './live-types';

/** `final`: the race is over and the results are final, so the stream was closed on purpose. */
export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'closed' | 'final';

type Action =
  | { kind: 'snapshot'; msg: SnapshotMessage }
  | { kind: 'update'; msg: UpdateMessage }
  | { kind: 'snap'; msg: LiveCompactSnapshot }
  | { kind: 'delta'; msg: LiveCompactDelta };

function reducer(state: LiveState, action: Action): LiveState {
  switch (action.kind) {
    case 'snapshot':
      return applySnapshot(action.msg, Date.now(), state);
    case 'update':
      return applyUpdate(state, action.msg, Date.now());
    case 'snap':
      return applyCompactSnapshot(action.msg, Date.now(), state);
    case 'delta':
      return applyCompactDelta(state, action.msg, Date.now());
  }
}

/**
 * One EventSource per race: a snapshot, then updates of the runners that changed. The browser reconnects by itself
 * (the server's retry hint has jitter; a stopping server sends a short one) and sends Last-Event-ID, so the server
 * answers with only what was missed, whichever process of a cluster it lands on; when it cannot tell, it sends a
 * snapshot, applied in place over what is shown (no empty state in between). It reads the compact stream (`?v=2`:
 * `snap` and `delta`, decoded by the domain's live-codec to the same board and map); a race whose public view is
 * not its live state (privacy) sends the first stream's `snapshot` and `update`, read as well.
 * Never goes through the API client: live updates must not show the blocking spinner.
 */
export function useLiveRace(raceId: number): { state: LiveState; status: ConnectionStatus } {
  const [state, dispatch] = useReducer(reducer, emptyLiveState);
  const [status, setStatus] = useState<ConnectionStatus>('connecting');

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    /** The last event id seen: a new EventSource (after the browser gave up) resumes from it too. */
    let lastEventId = '';
    const parse = <T>(e: MessageEvent): T | null => {
      if (e.lastEventId) lastEventId = e.lastEventId;
      try {
        return JSON.parse(e.data as string) as T;
      } catch {
        return null;
      }
    };
    const stop = (next: ConnectionStatus) => {
      stopped = true;
      source?.close();
      setStatus(next);
    };
    const open = () => {
      const resume = lastEventId ? `&lastEventId=${encodeURIComponent(lastEventId)}` : '';
      const es = new EventSource(`/api/open/races/${raceId}/live?v=2${resume}`);
      source = es;
      const onSnapshot = (msg: SnapshotMessage | LiveCompactSnapshot | null, kind: 'snapshot' | 'snap') => {
        if (msg) dispatch({ kind, msg } as Action);
        // After End Race nothing moves any more (fixes no longer advance anyone): keep the results, free the stream.
        if (msg && msg.ClockStoppedAt !== null) stop('final');
        else setStatus('live');
      };
      const onUpdate = (msg: UpdateMessage | LiveCompactDelta | null, kind: 'update' | 'delta') => {
        if (msg) dispatch({ kind, msg } as Action);
        setStatus('live');
      };
      es.addEventListener('snapshot', (e) => onSnapshot(parse(e as MessageEvent), 'snapshot'));
      es.addEventListener('snap', (e) => onSnapshot(parse(e as MessageEvent), 'snap'));
      es.addEventListener('update', (e) => onUpdate(parse(e as MessageEvent), 'update'));
      es.addEventListener('delta', (e) => onUpdate(parse(e as MessageEvent), 'delta'));
      es.addEventListener('gone', () => stop('closed'));
      es.onopen = () => {
        failures = 0;
        setStatus((s) => (s === 'final' ? s : 'live'));
      };
      es.onerror = () => {
        if (stopped) return;
        if (es.readyState !== EventSource.CLOSED) {
          setStatus((s) => (s === 'final' ? s : 'reconnecting'));
          return;
        }
        // The browser gives up by itself when the server answers other than 200 (a full server says 503, too many
        // streams from this address 429, a proxy during a restart 502): try again later, with jittered back-off
        // from 5 s to 2 min, so a crowd of viewers does not come back all at once.
        failures++;
        const wait = Math.min(120_000, 5_000 * 2 ** (failures - 1)) * (0.75 + Math.random() / 2);
        setStatus('reconnecting');
        retryTimer = setTimeout(() => {
          if (!stopped) open();
        }, wait);
      };
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [raceId]);

  return { state, status };
}

/** A clock that ticks every `ms`, for "last seen N min ago". */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
