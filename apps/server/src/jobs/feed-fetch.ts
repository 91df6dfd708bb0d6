/**
 * How the feed pollers (MapShare, SPOT) read a feed over HTTP: at most `maxBytes` of it, read as it arrives and
 * abandoned (the connection closed) the moment it passes the cap — a 60 MB answer, chunked or not, costs at most the
 * cap in memory — and no redirect to another host: a feed is read where it was asked for, with its password
 * (MapShare's Basic auth, SPOT's feedPassword) sent to nobody else.
 */

export interface FeedFetchOptions {
  /** For messages: "MapShare", "SPOT". */
  what: string;
  maxBytes: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Same-host redirects followed at most (default 3). */
  maxRedirects?: number;
}

export interface FeedAnswer {
  status: number;
  headers: Headers;
  /** The body read, when the status is 2xx (empty otherwise: an error page is not read). */
  text: string;
}

/** A redirect is followed only to the same host, over the same scheme or to https. */
function sameHost(from: URL, to: URL): boolean {
  return to.host === from.host && (to.protocol === from.protocol || to.protocol === 'https:');
}

export async function fetchFeed(url: URL, opts: FeedFetchOptions): Promise<FeedAnswer> {
  const { what, maxBytes, headers, signal } = opts;
  let at = url;
  for (let hops = 0; ; hops++) {
    // The abort of this request alone (over the cap) on top of the caller's (timeout, job stop).
    const own = new AbortController();
    const res = await fetch(at, {
      headers,
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal,
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get('location');
      const next = location ? new URL(location, at) : null;
      if (!next || !sameHost(url, next))
        throw new Error(
          `${what} answered a redirect (HTTP ${res.status}) to ${next ? next.host : 'nowhere'}: not followed (only the feed's own host is read).`,
        );
      if (hops >= (opts.maxRedirects ?? 3)) throw new Error(`${what} redirected too many times.`);
      at = next;
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { status: res.status, headers: res.headers, text: '' };
    }
    const tooBig = () =>
      new Error(`${what} answered more than ${maxBytes} bytes, more than a feed can hold.`);
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > maxBytes) {
      own.abort();
      await res.body?.cancel().catch(() => {});
      throw tooBig();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          // Stop reading and close the connection: the rest is never downloaded.
          own.abort();
          await reader.cancel().catch(() => {});
          throw tooBig();
        }
        chunks.push(value);
      }
    }
    return { status: res.status, headers: res.headers, text: Buffer.concat(chunks, size).toString('utf8') };
  }
}
