import { describe, expect, it } from 'vitest';
import type { CheckinAnswer, CheckinBody } from '@racebeacon/domain/checkin';
import { CheckinQueue, isTransient, memoryStore, retryDelayMs, type EntryStore } from './queue';

const T0 = Date.parse('2026-06-01T10:00:00Z');

/** A fake server: idempotent by EntryId like the real one, with a switch for the network. */
function fakeServer() {
  const stored = new Map<string, CheckinAnswer>();
  const server = {
    online: true,
    calls: [] as CheckinBody[],
    refuse: new Map<string, { status: number; message: string; error?: string }>(),
    stored,
    async send(_token: string, body: CheckinBody): Promise<CheckinAnswer> {
      server.calls.push(body);
      if (!server.online) throw { status: 0, error: 'network_error', message: 'Failed to fetch' };
      const refusal = server.refuse.get(body.BibNumber);
      if (refusal) throw { error: 'x', ...refusal };
      const first = stored.get(body.EntryId);
      if (first) return first;
      const answer = { EntryId: body.EntryId, BibNumber: body.BibNumber, Kind: body.Kind } as CheckinAnswer;
      stored.set(body.EntryId, answer);
      return answer;
    },
  };
  return server;
}

/** Timers run by hand: `fire()` runs the pending one. */
function manualTimers() {
  const pending: { fn: () => void; ms: number }[] = [];
  return {
    pending,
    setTimer: (fn: () => void, ms: number) => {
      const h = { fn, ms };
      pending.push(h);
      return h;
    },
    clearTimer: (h: unknown) => {
      const i = pending.indexOf(h as (typeof pending)[number]);
      if (i >= 0) pending.splice(i, 1);
    },
    async fire() {
      const h = pending.shift();
      h?.fn();
      await settle();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

function makeQueue(store: EntryStore = memoryStore(), server = fakeServer(), timers = manualTimers()) {
  let n = 0;
  let now = T0;
  const queue = new CheckinQueue({
    token: 'tok',
    store,
    send: (token, body) => server.send(token, body),
    newId: () => `entry-${String(++n).padStart(4, '0')}`,
    now: () => (now += 1000),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  return { queue, server, timers, store };
}

describe('retryDelayMs / isTransient', () => {
  it.each([
    [1, 2000],
    [2, 4000],
    [3, 8000],
    [6, 60_000],
    [20, 60_000],
  ])('after %i failures waits %i ms', (attempts, ms) => expect(retryDelayMs(attempts)).toBe(ms));
  it.each([
    [0, true],
    [503, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
    [409, false],
  ])('status %i transient: %s', (status, expected) => expect(isTransient({ status })).toBe(expected));
});

describe('CheckinQueue', () => {
  it('keeps entries made offline as waiting, then sends each exactly once when back online', async () => {
    const { queue, server, timers } = makeQueue();
    server.online = false;
    await queue.add('1', 'in');
    await queue.add('2', 'in');
    await queue.add('3', 'out');
    await settle();
    expect(queue.list().map((e) => [e.BibNumber, e.state])).toEqual([
      ['3', 'waiting'],
      ['2', 'waiting'],
      ['1', 'waiting'],
    ]);
    // Offline: the first send failed, nothing more is tried until the retry timer (with back-off).
    expect(timers.pending).toHaveLength(1);
    server.online = true;
    queue.online();
    await settle();
    await settle();
    expect(queue.list().map((e) => e.state)).toEqual(['sent', 'sent', 'sent']);
    expect(server.stored.size).toBe(3);
    const successful = server.calls.filter((c, i) => i >= server.calls.length - 3);
    expect(successful.map((c) => c.BibNumber)).toEqual(['1', '2', '3']);
    expect(timers.pending).toHaveLength(0);
  });

  it('retries with growing back-off while the network is away', async () => {
    const { queue, server, timers } = makeQueue();
    server.online = false;
    await queue.add('7', 'in');
    await settle();
    expect(timers.pending.map((t) => t.ms)).toEqual([2000]);
    await timers.fire();
    expect(timers.pending.map((t) => t.ms)).toEqual([4000]);
    await timers.fire();
    expect(timers.pending.map((t) => t.ms)).toEqual([8000]);
    expect(queue.list()[0]).toMatchObject({ state: 'waiting', attempts: 3 });
    server.online = true;
    await timers.fire();
    expect(queue.list()[0].state).toBe('sent');
    expect(timers.pending).toHaveLength(0);
  });

  it('marks a refused entry (unknown bib) with the server’s message and never sends it again', async () => {
    const { queue, server, timers } = makeQueue();
    server.refuse.set('999', { status: 404, message: 'No runner wears bib 999 in this race.' });
    await queue.add('999', 'in');
    await queue.add('5', 'in');
    await settle();
    await settle();
    expect(queue.list().map((e) => [e.BibNumber, e.state, e.message])).toEqual([
      ['5', 'sent', undefined],
      ['999', 'refused', 'No runner wears bib 999 in this race.'],
    ]);
    const before = server.calls.length;
    queue.online();
    await settle();
    expect(server.calls.length).toBe(before);
    expect(timers.pending).toHaveLength(0);
  });

  it('keeps the error code of a refusal (race ended, status kept) so the page can word it; never retried', async () => {
    const { queue, server, timers } = makeQueue();
    server.refuse.set('7', { status: 409, error: 'race_ended', message: 'The race has ended.' });
    server.refuse.set('8', { status: 409, error: 'status_kept', message: 'Bib 8: DSQ.' });
    await queue.add('7', 'in');
    await queue.add('8', 'dnf');
    await settle();
    await settle();
    expect(queue.list().map((e) => [e.BibNumber, e.state, e.error])).toEqual([
      ['8', 'refused', 'status_kept'],
      ['7', 'refused', 'race_ended'],
    ]);
    const before = server.calls.length;
    queue.online();
    await settle();
    expect(server.calls.length).toBe(before);
    expect(timers.pending).toHaveLength(0);
  });

  it('survives a reload: the stored entries are read back and the waiting ones sent with their first EntryId', async () => {
    const store = memoryStore();
    const server = fakeServer();
    server.online = false;
    const first = makeQueue(store, server);
    const made = await first.queue.add('12', 'dnf');
    await settle();
    first.queue.dispose();
    server.online = true;
    const second = makeQueue(store, server);
    await second.queue.load();
    await settle();
    await settle();
    expect(second.queue.list()).toMatchObject([{ EntryId: made.EntryId, state: 'sent', Kind: 'dnf' }]);
    expect([...server.stored.keys()]).toEqual([made.EntryId]);
    expect(store.rows.get(made.EntryId)?.state).toBe('sent');
  });

  it('sends one entry at a time even when flushed repeatedly (no entry twice at once)', async () => {
    const { queue, server } = makeQueue();
    let inFlight = 0;
    let most = 0;
    const send = server.send.bind(server);
    server.send = async (token, body) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await settle();
      try {
        return await send(token, body);
      } finally {
        inFlight--;
      }
    };
    await Promise.all([queue.add('1', 'in'), queue.add('2', 'in'), queue.add('3', 'in')]);
    await Promise.all([queue.flush(), queue.flush(), queue.flush()]);
    for (let i = 0; i < 10; i++) await settle();
    expect(most).toBe(1);
    expect(server.calls.map((c) => c.BibNumber)).toEqual(['1', '2', '3']);
    expect(queue.list().every((e) => e.state === 'sent')).toBe(true);
  });
});
