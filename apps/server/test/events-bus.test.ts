import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus, type EventBus, type LiveEvent } from '../src/events/bus';
import { createPgBus, packEnvelopes, unpackEnvelope } from '../src/events/pg-bus';
import { createTestDatabase, type TestDatabase } from './support/databases';

const position = (i: number): LiveEvent => ({
  type: 'position',
  raceId: 1,
  runnerId: 2,
  deviceId: 3,
  positionId: i,
  fixTime: new Date(1760000000000 + i * 1000).toISOString(),
  receivedAt: new Date(1760000000000 + i * 1000).toISOString(),
  lat: 46.5581,
  lon: 7.9112,
  altitude: 1732,
  speed: 1.2,
  batteryPercent: 81,
  batteryState: 'GOOD',
  source: 'osmand',
});

function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (cond()) resolve();
      else if (Date.now() > until) reject(new Error('timed out waiting'));
      else setTimeout(tick, 10);
    };
    tick();
  });
}

describe('memory bus', () => {
  it('delivers to every subscriber, survives a throwing one, stops after unsubscribe', async () => {
    const bus = createMemoryBus();
    const a: LiveEvent[] = [];
    const b: LiveEvent[] = [];
    bus.subscribe(() => {
      throw new Error('bad subscriber');
    });
    const offA = bus.subscribe((e) => a.push(e));
    bus.subscribe((e) => b.push(e));
    await bus.publish(position(1));
    offA();
    await bus.publish({ type: 'race-updated', raceId: 7 });
    expect(a.map((e) => e.type)).toEqual(['position']);
    expect(b).toEqual([position(1), { type: 'race-updated', raceId: 7 }]);
    await bus.close();
  });
});

describe('packEnvelopes', () => {
  it('keeps every NOTIFY payload under the limit and loses no event', () => {
    const events = Array.from({ length: 200 }, (_, i) => position(i));
    const payloads = packEnvelopes('origin-1', events);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(7000);
    const back = payloads.flatMap((p) => unpackEnvelope(p)!.events);
    expect(payloads.every((p) => unpackEnvelope(p)!.origin === 'origin-1')).toBe(true);
    expect(back).toEqual(events);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL bus (LISTEN/NOTIFY)', () => {
  let database: TestDatabase;
  let one: EventBus;
  let two: EventBus;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    one = await createPgBus({ url: database.url!, pool: database.pool! });
    two = await createPgBus({ url: database.url!, pool: database.pool! });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.close();
  });

  it('reaches the other bus, once per bus, including batches larger than one NOTIFY', async () => {
    const seenOne: LiveEvent[] = [];
    const seenTwo: LiveEvent[] = [];
    one.subscribe((e) => seenOne.push(e));
    two.subscribe((e) => seenTwo.push(e));
    const events = Array.from({ length: 120 }, (_, i) => position(i));
    await Promise.all(events.map((e) => one.publish(e)));
    await waitFor(() => seenTwo.length >= 120);
    // give a duplicate echo the chance to arrive before asserting there is none
    await two.publish({ type: 'race-updated', raceId: 9 });
    await waitFor(() => seenOne.length >= 121);
    await new Promise((r) => setTimeout(r, 200));
    expect(seenTwo.slice(0, 120)).toEqual(events);
    expect(seenTwo).toHaveLength(121);
    expect(seenOne).toHaveLength(121);
    expect(seenOne[120]).toEqual({ type: 'race-updated', raceId: 9 });
  });
});
