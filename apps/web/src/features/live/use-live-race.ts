import { useEffect, useReducer, useState } from 'react';
import { applySnapshot, applyUpdate, emptyLiveState, type LiveState } from './live-store';
import type { SnapshotMessage, UpdateMessage } from './live-types';

/** `final`: the race is over and the results are final, so the stream was closed on purpose. */
export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'closed' | 'final';

type Action = { kind: 'snapshot'; msg: SnapshotMessage } | { kind: 'update'; msg: UpdateMessage };

function reducer(state: LiveState, action: Action): LiveState {
  return action.kind === 'snapshot'
    ? applySnapshot(action.msg, Date.now())
    : applyUpdate(state, action.msg, Date.now());
}

/**
 * One EventSource per race: a snapshot, then updates of the runners that changed. The browser reconnects by itself
 * (the server's retry hint has jitter) and sends Last-Event-ID, so the server answers with only what was missed.
 * Never goes through the API client: live updates must not show the blocking spinner.
 */
export function useLiveRace(raceId: number): { state: LiveState; status: ConnectionStatus } {
  const [state, dispatch] = useReducer(reducer, emptyLiveState);
  const [status, setStatus] = useState<ConnectionStatus>('connecting');

  useEffect(() => {
    const source = new EventSource(`/api/open/races/${raceId}/live`);
    const parse = <T>(e: MessageEvent): T | null => {
      try {
        return JSON.parse(e.data as string) as T;
      } catch {
        return null;
      }
    };
    source.addEventListener('snapshot', (e) => {
      const msg = parse<SnapshotMessage>(e as MessageEvent);
      if (msg) dispatch({ kind: 'snapshot', msg });
      // After End Race nothing moves any more (fixes no longer advance anyone): keep the results, free the stream.
      if (msg && msg.ClockStoppedAt !== null) {
        source.close();
        setStatus('final');
      } else setStatus('live');
    });
    source.addEventListener('update', (e) => {
      const msg = parse<UpdateMessage>(e as MessageEvent);
      if (msg) dispatch({ kind: 'update', msg });
      setStatus('live');
    });
    source.addEventListener('gone', () => {
      source.close();
      setStatus('closed');
    });
    source.onopen = () => setStatus((s) => (s === 'final' ? s : 'live'));
    source.onerror = () =>
      setStatus((s) =>
        s === 'final' ? s : source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting',
      );
    return () => source.close();
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
