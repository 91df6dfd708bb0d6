import http from 'node:http';

/** A minimal Server-Sent Events reader over real HTTP, for tests (parses id/event/data/retry fields). */

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
  retry?: number;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (from the start of the stream) matching, not yet taken by an earlier call. */
  next(match?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

export function connectSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const taken = new Set<number>();
      const waiters: (() => void)[] = [];
      let buf = '';
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const e: SseEvent = { event: 'message', data: '' };
          let hasField = false;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
              continue;
            }
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            hasField = true;
            if (field === 'id') e.id = value;
            else if (field === 'event') e.event = value;
            else if (field === 'data') data.push(value);
            else if (field === 'retry') e.retry = Number(value);
          }
          if (!hasField) continue;
          e.data = data.join('\n');
          events.push(e);
        }
        for (const w of waiters.splice(0)) w();
      });
      res.on('end', () => endedResolve());
      res.on('close', () => endedResolve());
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        ended,
        next(match = () => true, timeoutMs = 10_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () =>
                fail(
                  new Error(
                    `no matching SSE event within ${timeoutMs} ms; got ${events.map((x) => x.event)}`,
                  ),
                ),
              timeoutMs,
            );
            const check = () => {
              const i = events.findIndex((e, k) => !taken.has(k) && match(e));
              if (i >= 0) {
                taken.add(i);
                clearTimeout(timer);
                ok(events[i]);
              } else waiters.push(check);
            };
            check();
          });
        },
        close() {
          req.destroy();
        },
      };
      resolve(conn);
    });
    req.on('error', reject);
  });
}
