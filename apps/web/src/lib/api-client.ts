/**
 * The one way the browser calls the API: base path /api, a bearer token when signed in, JSON unless a file is sent,
 * JSON responses; a non-OK response rejects with its parsed body after logging 'API Fetch Error:' to the console, so
 * every failed call leaves a trace a developer can find. Every call that does not opt out with { background: true }
 * counts as "in flight" and drives the global spinner overlay, which blocks input while any such call runs, so a
 * click cannot land on a screen that is about to change; background refreshes (live data) opt out.
 */

import { createSseParser, type SseEvent } from './sse';

export const API_BASE = '/api';

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A plain object is sent as JSON; FormData is sent as multipart (the browser sets the boundary). */
  body?: unknown;
  /** Background refreshes do not show the spinner. */
  background?: boolean;
  signal?: AbortSignal;
  /** Resolve a 404 as null instead of rejecting (e.g. a race that has no course yet is not an error). */
  notFoundAsNull?: boolean;
}

/** The rejection value of a failed call: the parsed body, plus the status for callers that branch on it. */
export interface ApiFailure {
  status: number;
  error?: string;
  message?: string;
  [key: string]: unknown;
}

type TokenSource = () => Promise<string | null>;
let tokenSource: TokenSource = async () => null;

/** Wired once by the app to the auth layer's getAccessToken(). */
export function setAccessTokenSource(source: TokenSource): void {
  tokenSource = source;
}

// --- in-flight counter (a tiny external store for useSyncExternalStore) ---
let inFlight = 0;
const listeners = new Set<() => void>();
function bump(delta: number) {
  inFlight += delta;
  for (const l of listeners) l();
}
export function subscribeInFlight(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export function getInFlight(): number {
  return inFlight;
}

async function parseBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

export async function apiFetch<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const counted = !opts.background;
  if (counted) bump(1);
  try {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = await tokenSource().catch(() => null);
    if (token) headers.Authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) {
      body = opts.body;
    } else if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await fetch(`${API_BASE}${path}`, {
        method: opts.method ?? 'GET',
        headers,
        body,
        signal: opts.signal,
      });
    } catch (err) {
      // Cancelled by the caller (the screen that asked went away): not a failure, nothing to log.
      if (opts.signal?.aborted) throw err;
      console.error('API Fetch Error:', err);
      throw { status: 0, error: 'network_error', message: String(err) } satisfies ApiFailure;
    }
    if (res.status === 404 && opts.notFoundAsNull) return null as T;
    const data = await parseBody(res);
    if (!res.ok) {
      const failure: ApiFailure = {
        ...(data && typeof data === 'object' ? (data as object) : { message: String(data ?? '') }),
        status: res.status,
      };
      console.error('API Fetch Error:', failure);
      throw failure;
    }
    return data as T;
  } finally {
    if (counted) bump(-1);
  }
}

export interface StreamOptions {
  /** Aborting closes the stream; the returned promise then rejects with the abort reason. */
  signal: AbortSignal;
  /** Called once per Server-Sent Event, in order. */
  onEvent(event: SseEvent): void;
  /** The server accepted the stream (200): events follow. */
  onOpen?(): void;
}

/**
 * An authenticated Server-Sent Events stream (EventSource cannot send a bearer token, and a token never goes in a
 * URL, where it would end in logs): fetch with the Authorization header, then the body read as SSE. Resolves when
 * the server ends the stream; rejects with an ApiFailure when the server refuses it (401, 403, 404, 503…, logged
 * as 'API Fetch Error:' like every call) or the connection drops (status 0). Reconnecting is the caller's choice;
 * each call asks the auth layer for the token again, so a renewed token is used. Never shows the spinner.
 */
export async function apiStream(path: string, opts: StreamOptions): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };
  const token = await tokenSource().catch(() => null);
  if (token) headers.Authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, { headers, signal: opts.signal, cache: 'no-store' });
  } catch (err) {
    if (opts.signal.aborted) throw err;
    console.error('API Fetch Error:', err);
    throw { status: 0, error: 'network_error', message: String(err) } satisfies ApiFailure;
  }
  if (!res.ok || !res.body) {
    const data = await parseBody(res).catch(() => null);
    const failure: ApiFailure = {
      ...(data && typeof data === 'object' ? (data as object) : { message: String(data ?? '') }),
      status: res.status,
    };
    console.error('API Fetch Error:', failure);
    throw failure;
  }
  opts.onOpen?.();
  const parser = createSseParser(opts.onEvent);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  } catch (err) {
    if (opts.signal.aborted) throw err;
    // A dropped connection mid-stream is expected now and then (a proxy, a phone changing networks): no log.
    throw { status: 0, error: 'stream_dropped', message: String(err) } satisfies ApiFailure;
  } finally {
    reader.releaseLock();
  }
}

/**
 * A file from the API (a CSV export) with the caller's bearer token, which a plain link cannot send: the body as a
 * Blob and the file name from Content-Disposition. Fails like every call (logged, rejected with the parsed body).
 */
export async function apiDownload(path: string): Promise<{ blob: Blob; fileName: string | null }> {
  bump(1);
  try {
    const headers: Record<string, string> = {};
    const token = await tokenSource().catch(() => null);
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetch(`${API_BASE}${path}`, { headers });
    } catch (err) {
      console.error('API Fetch Error:', err);
      throw { status: 0, error: 'network_error', message: String(err) } satisfies ApiFailure;
    }
    if (!res.ok) {
      const data = await parseBody(res);
      const failure: ApiFailure = {
        ...(data && typeof data === 'object' ? (data as object) : { message: String(data ?? '') }),
        status: res.status,
      };
      console.error('API Fetch Error:', failure);
      throw failure;
    }
    const disposition = res.headers.get('content-disposition') ?? '';
    const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
    return { blob: await res.blob(), fileName };
  } finally {
    bump(-1);
  }
}

export const api = {
  get: <T>(path: string, opts?: Omit<RequestOptions, 'method' | 'body'>) => apiFetch<T>(path, opts),
  post: <T>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiFetch<T>(path, { ...opts, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiFetch<T>(path, { ...opts, method: 'PUT', body }),
  /** A body only where the API asks for one (e.g. the push subscription's secret endpoint, kept out of URLs). */
  del: <T>(path: string, opts?: Omit<RequestOptions, 'method'>) =>
    apiFetch<T>(path, { ...opts, method: 'DELETE' }),
};
