import { useEffect, useReducer, useState } from 'react';
import type { ApiFailure } from '../../lib/api-client';
import { liveApi } from './api';
import {
  COMPACT_STREAM_VERSION,
  type LiveCompactDelta,
  type LiveCompactSnapshot,
} from '@racebeacon/domain/live';
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
 * snapshot, applied in place over what is shown (no empty state in between). It reads the compact stream (`?v=5`:
 * `snap` and `delta`, decoded by the domain's live-codec to the same board and map); a race whose public view is
 * not its live state (privacy) sends the first stream's `snapshot` and `update`, read as well.
 * Never goes through the API client: live updates must not show the blocking spinner.
 *
 * `live`: the viewer is the race's director or an admin, signed in. The stream is then opened with a stream ticket
 * (`POST /api/director/races/{raceId}/live-ticket`, through the API client in the background), so it is the live
 * race even when the public sees it delayed or without hidden runners. A ticket opens a stream for 60 s only: when
 * the browser's own reconnect comes later, the server refuses it (401) and EventSource stops; a fresh ticket is then
 * asked for at once and a new stream opened, resuming from the last event id. A viewer who is refused a ticket (signed
 * out meanwhile: 401/403/404) reads the public stream.
 */
export function useLiveRace(raceId: number, live = false): { state: LiveState; status: ConnectionStatus } {
  const [state, dispatch] = useReducer(reducer, emptyLiveState);
  const [status, setStatus] = useState<ConnectionStatus>('connecting');

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    /** The last event id seen: a new EventSource (after the browser gave up) resumes from it too. */
    let lastEventId = '';
    /** Still asking for tickets (false once refused one: the public stream instead). */
    let withTicket = live;
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
    const retryLater = () => {
      // Jittered back-off from 5 s to 2 min, so a crowd of viewers does not come back all at once; a director's
      // first retry is at once, with a fresh ticket (the last one may just have expired).
      failures++;
      const wait =
        withTicket && failures === 1
          ? 0
          : Math.min(120_000, 5_000 * 2 ** (failures - 1)) * (0.75 + Math.random() / 2);
      setStatus('reconnecting');
      retryTimer = setTimeout(() => {
        if (!stopped) void open();
      }, wait);
    };
    const open = async () => {
      const resume = lastEventId ? `&lastEventId=${encodeURIComponent(lastEventId)}` : '';
      let ticket = '';
      if (withTicket) {
        try {
          ticket = `&ticket=${encodeURIComponent((await liveApi.streamTicket(raceId)).Ticket)}`;
        } catch (err) {
          if (stopped) return;
          const status = (err as ApiFailure).status;
          // Not (or no longer) entitled: the public stream. Otherwise (network, 503) try again later.
          if (status === 401 || status === 403 || status === 404) withTicket = false;
          else return retryLater();
        }
        if (stopped) return;
      }
      const es = new EventSource(
        `/api/open/races/${raceId}/live?v=${COMPACT_STREAM_VERSION}${resume}${ticket}`,
      );
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
        // streams from this address 429, a proxy during a restart 502, an expired stream ticket 401): try again.
        retryLater();
      };
    };
    void open();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [raceId, live]);

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
