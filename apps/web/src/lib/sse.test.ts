import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse';

function parse(chunks: string[]) {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const c of chunks) parser.feed(c);
  return { events, parser };
}

describe('createSseParser', () => {
  it('parses named events with JSON data, ignoring comments', () => {
    const { events } = parse([
      ': keep-alive\n\nevent: alerts\ndata: []\n\nevent: alert\nid: 7\ndata: {"a":1}\n\n',
    ]);
    expect(events).toEqual([
      { event: 'alerts', data: '[]', id: null },
      { event: 'alert', data: '{"a":1}', id: '7' },
    ]);
  });

  it('joins chunks split anywhere, including inside a CRLF', () => {
    const text = 'event: alert\r\ndata: {"x":\r\ndata: 2}\r\n\r\n';
    for (let cut = 1; cut < text.length; cut++) {
      const { events } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(events, `cut at ${cut}`).toEqual([{ event: 'alert', data: '{"x":\n2}', id: null }]);
    }
  });

  it('defaults the event name to message, skips data-less events and keeps the retry hint', () => {
    const { events, parser } = parse(['retry: 3000\n\nevent: ping\n\ndata:hello\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'hello', id: null }]);
    expect(parser.retryMs).toBe(3000);
  });

  it('does not dispatch an event that has not ended yet', () => {
    const { events } = parse(['event: alert\ndata: {}\n']);
    expect(events).toEqual([]);
  });
});
