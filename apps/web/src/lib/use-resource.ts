import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiFailure } from './api-client';

export interface Resource<T> {
  data: T | undefined;
  error: ApiFailure | null;
  loading: boolean;
  /** Loads again (after every change the screen reloads what it shows). */
  reload(): Promise<void>;
}

/**
 * Loads data for a screen. The API client already logged any failure; the screen decides what to show.
 * A late answer for an older key is dropped so fast navigation never shows the wrong race.
 */
export function useResource<T>(load: () => Promise<T>, key: unknown[]): Resource<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const loader = useCallback(load, key);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loader();
      if (mine !== generation.current) return;
      setData(value);
      setError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setError(err as ApiFailure);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [loader]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { data, error, loading, reload };
}
