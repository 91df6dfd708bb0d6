import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventBus, LiveEvent } from '../src/events/bus';
import { createPgBus, decodePosition, unpackEnvelope, type CompactPosition } from '../src/events/pg-bus';
import { storeFixes } from '../src/ingest/fix-repository';
import type { FixInput } from '../src/ingest/types';
import { createTestDatabase, type TestDatabase } from './support/databases';

/**
 * The ingest batch statement announces the fixes it stores itself (pg_notify in its own transaction, issue 14): a
 * stored fix reaches the other processes even when the process that stored it does nothing more (killed right
 * after the commit, before it answered or published).
 */

describe('compact position payload', () => {
  it('decodes into the position event the pipeline delivers locally', () => {
    const a: CompactPosition = [
      7,
      8,
      9,
      1234,
      1760000000000,
      1760000000123,
      46.5,
      7.25,
      null,
      1.5,
      81,
      'GOOD',
      'osmand',
    ];
    const env = unpackEnvelope(`origin-1\np${JSON.stringify([a])}`);
    expect(env).toEqual({ origin: 'origin-1', events: [decodePosition(a)] });
    expect(env!.events[0]).toEqual({
      type: 'position',
      raceId: 7,
      runnerId: 8,
      deviceId: 9,
      positionId: 1234,
      fixTime: '2025-10-09T08:53:20.000Z',
      receivedAt: '2025-10-09T08:53:20.123Z',
      lat: 46.5,
      lon: 7.25,
      altitude: null,
      speed: 1.5,
      batteryPercent: 81,
      batteryState: 'GOOD',
      source: 'osmand',
      // A 13-element array (a process that predates the accuracy) reads as no accuracy.
      accuracy: null,
    });
    // The accuracy, when the device reported one, is the optional 14th element.
    const withAccuracy = unpackEnvelope(`origin-1\np${JSON.stringify([[...a, 60]])}`);
    expect(withAccuracy!.events[0]).toEqual({ ...env!.events[0], accuracy: 60 });
    expect(unpackEnvelope('origin-1\np[broken')).toBeNull();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('ingest statement NOTIFY (PostgreSQL)', () => {
  let database: TestDatabase;
  let sender: EventBus;
  let other: EventBus;
  let deviceId: number;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    sender = await createPgBus({ url: database.url!, pool: database.pool! });
    other = await createPgBus({ url: database.url!, pool: database.pool! });
    const res = await database.pool!.query<{ id: number }>(
      `INSERT INTO devices (name, source, tracking_key) VALUES ('N', 'osmand', 'notify-key-0123456789') RETURNING id`,
    );
    deviceId = res.rows[0].id;
  });
  afterAll(async () => {
    await sender?.close();
    await other?.close();
    await database?.close();
  });

  it('every stored fix reaches the other processes with the commit, packed under the NOTIFY limit', async () => {
    const seen: LiveEvent[] = [];
    const seenBySender: LiveEvent[] = [];
    other.subscribe((e) => seen.push(e));
    sender.subscribe((e) => seenBySender.push(e));
    const payloads: number[] = [];
    // Payload sizes, read from a raw listener: the statement must keep each under PostgreSQL's 8000 bytes.
    const { default: pg } = await import('pg');
    const raw = new pg.Client({ connectionString: database.url! });
    await raw.connect();
    raw.on('notification', (m) => payloads.push(Buffer.byteLength(m.payload ?? '')));
    await raw.query('LISTEN racebeacon_events');

    const t0 = Date.UTC(2026, 0, 1, 8);
    const fixes: FixInput[] = Array.from({ length: 300 }, (_, i) => ({
      device: { trackingKey: 'notify-key-0123456789' },
      source: 'osmand',
      fixTime: new Date(t0 + i * 1000),
      lat: 46 + i / 10_000,
      lon: 7.123456789,
      altitude: i % 2 ? null : 1500.5,
      speed: 2,
      batteryPercent: 80,
      batteryState: i === 7 ? 'LOW "quoted" ü' : null,
      // Every third fix with the device's own accuracy (announced with it), the others without.
      accuracy: i % 3 ? null : 12.5 + i,
    }));
    // One copy of a fix twice in the batch, and one already stored: announced once, and not again.
    const first = await storeFixes(database.db, fixes.slice(0, 1), database.pool, sender.positionNotify()!);
    const stored = await storeFixes(
      database.db,
      [...fixes, fixes[5]],
      database.pool,
      sender.positionNotify()!,
    );
    expect(first[0].positionId).not.toBeNull();
    expect(stored[0].positionId).toBeNull(); // already stored
    const deadline = Date.now() + 5000;
    while (seen.length < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    await raw.end();

    // Nothing was published by hand: only the statements announced (the sender skips its own echo).
    expect(seenBySender).toEqual([]);
    expect(seen).toHaveLength(300);
    const byTime = new Map(seen.map((e) => [(e as Extract<LiveEvent, { type: 'position' }>).fixTime, e]));
    for (const [i, f] of fixes.entries()) {
      const e = byTime.get(f.fixTime.toISOString()) as Extract<LiveEvent, { type: 'position' }>;
      expect(e, `fix ${i}`).toBeDefined();
      expect(e).toMatchObject({
        type: 'position',
        deviceId,
        raceId: null,
        runnerId: null,
        lat: f.lat,
        lon: f.lon,
        altitude: f.altitude,
        speed: 2,
        batteryPercent: 80,
        batteryState: f.batteryState,
        source: 'osmand',
        accuracy: f.accuracy,
      });
      const row = i === 0 ? first[0] : stored[i];
      expect(e.positionId).toBe(row.positionId);
      expect(e.receivedAt).toBe(row.receivedAt);
    }
    expect(payloads.length).toBeGreaterThan(1);
    expect(Math.max(...payloads)).toBeLessThan(8000);
  });
});
