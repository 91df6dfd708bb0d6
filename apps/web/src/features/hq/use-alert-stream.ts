import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiFailure } from '../../lib/api-client';
import type { Alert } from './alert-types';
import { hqApi } from './api';
import { applySnapshot, mergeResolved, upsertAlert, type AlertMap } from './hq-store';

/** `denied`: the server answered 403/404, this account may not watch this race's alerts. */
export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'denied';

/** Back-off before the n-th reconnect (n ≥ 1): 1 s, 2 s, 4 s … capped at 30 s, ±25 % jitter. */
export function reconnectDelay(failures: number, random = Math.random()): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1)) * (0.75 + random / 2);
}

const parse = (data: string): unknown => {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
};

/**
 * The race's alerts, live: the authenticated stream (fetch, not EventSource: it carries the bearer token) gives the
 * open and acknowledged alerts on connect and every change after; resolved alerts are read once per connection.
 * When the stream drops it reconnects with back-off, asking the auth layer for a token each time (renewed when due).
 * `onChange` runs after every change the stream brought (the screen reloads the HQ log then).
 */
export function useAlertStream(raceId: number, onChange?: () => void) {
  const [alerts, setAlerts] = useState<AlertMap>(() => new Map());
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [loaded, setLoaded] = useState(false);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    const ctrl = new AbortController();
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setAlerts(new Map());
    setLoaded(false);
    setStatus('connecting');

    const loadResolved = () =>
      hqApi.alerts(raceId, 'resolved', ctrl.signal).then(
        (resolved) => setAlerts((cur) => mergeResolved(cur, resolved)),
        () => undefined,
      );

    const connect = async () => {
      try {
        await hqApi.stream(raceId, {
          signal: ctrl.signal,
          onOpen: () => {
            failures = 0;
            setStatus('live');
            void loadResolved();
          },
          onEvent: (e) => {
            const data = parse(e.data);
            if (e.event === 'alerts' && Array.isArray(data)) {
              setAlerts((cur) => applySnapshot(cur, data as Alert[]));
              setLoaded(true);
            } else if (e.event === 'alert' && data && typeof data === 'object') {
              setAlerts((cur) => upsertAlert(cur, data as Alert));
            } else {
              return;
            }
            onChangeRef.current?.();
          },
        });
      } catch (err) {
        if (ctrl.signal.aborted) return;
        const code = (err as ApiFailure).status;
        if (code === 403 || code === 404) {
          setStatus('denied');
          return;
        }
      }
      if (ctrl.signal.aborted) return;
      // The stream ended or failed: try again later (a 401 comes back with a renewed token).
      failures++;
      setStatus('reconnecting');
      timer = setTimeout(() => void connect(), reconnectDelay(failures));
    };
    void connect();
    return () => {
      ctrl.abort();
      clearTimeout(timer);
    };
  }, [raceId]);

  /** An alert the screen changed itself (acknowledge/resolve answered with the updated alert). */
  const apply = useCallback((alert: Alert) => setAlerts((cur) => upsertAlert(cur, alert)), []);

  return { alerts, status, loaded, apply };
}
