/**
 * A Server-Sent Events parser for streams read with fetch (the HQ alert stream needs a bearer token, which
 * EventSource cannot send). Feed it decoded text in chunks of any size; it calls `onEvent` once per complete event,
 * following the WHATWG rules: lines end in LF, CR or CRLF; `event:`, `data:` (joined with LF), `id:` and `retry:`
 * fields; lines starting with ':' are comments (keep-alives); an event without data is not dispatched.
 */

export interface SseEvent {
  /** `message` when the event had no `event:` field. */
  event: string;
  data: string;
  id: string | null;
}

export interface SseParser {
  feed(chunk: string): void;
  /** The server's `retry:` hint in ms, if it sent one. */
  readonly retryMs: number | null;
}

export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let eventName = '';
  let data: string[] = [];
  let lastId: string | null = null;
  let retryMs: number | null = null;
  /** A chunk ended in CR: an LF at the start of the next chunk belongs to the same line break. */
  let pendingCr = false;

  const dispatch = () => {
    if (data.length > 0) onEvent({ event: eventName || 'message', data: data.join('\n'), id: lastId });
    eventName = '';
    data = [];
  };

  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventName = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  };

  return {
    feed(chunk: string) {
      if (pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      pendingCr = false;
      buffer += chunk;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        line(buffer.slice(start, i));
        if (c === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i++;
          } else {
            pendingCr = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    get retryMs() {
      return retryMs;
    },
  };
}
