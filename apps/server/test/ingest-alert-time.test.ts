import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { addDevice, addRace, addRunner, assign, collectEvents } from './ingest-fixtures';
import { deviceAlerts } from '../src/db/schema';
import type { LiveEvent } from '../src/events/bus';
import { readSpotPage } from '../src/ingest/adapters/spot';

/**
 * An alert (an SOS above all) whose own timestamp is unusable — unreadable, missing, before 2000, far in the future
 * — is never dropped: it is recorded at its receive time, the bad time is logged, and the same alert delivered again
 * (a SPOT feed shows it at every poll) is recorded once.
 */

const INREACH_TOKEN = 'alert-time-token';

describe.each(dbKinds)('alerts with an unusable time (%s)', (kind) => {
  let t: TestContext;
  let events: LiveEvent[];
  beforeAll(async () => {
    t = await createTestApp(kind, { INREACH_OUTBOUND_TOKEN: INREACH_TOKEN });
    events = collectEvents(t.app);
  });
  afterAll(async () => t?.close());

  const alertsOf = (deviceId: number) =>
    t.app.db.select().from(deviceAlerts).where(eq(deviceAlerts.deviceId, deviceId));

  it('inReach: an SOS with an impossible, missing or far-future time is recorded at its receive time, once', async () => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId);
    const dev = await addDevice(t.app, { source: 'inreach', hardwareId: '300434060777001' });
    await assign(t.app, dev.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    const sos = (timeStamp: unknown, freeText: string) => ({
      imei: '300434060777001',
      messageCode: 4,
      freeText,
      ...(timeStamp === undefined ? {} : { timeStamp }),
      point: { latitude: 46.5, longitude: 7.9, altitude: 1700, gpsFix: 2 },
    });
    const payload = {
      Version: '2.0',
      Events: [
        sos(1e20, 'clock far beyond any date'),
        sos(undefined, 'no time at all'),
        sos(Date.now() + 86_400_000, 'a day ahead'),
      ],
    };
    const warn = vi.spyOn(t.app.log, 'warn');
    const sentAt = Date.now();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/ingest/inreach',
        headers: { 'x-outbound-auth-token': INREACH_TOKEN },
        payload,
      });
    const res = await send();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ stored: 0, alerts: 3 });

    const alerts = await alertsOf(dev.id);
    expect(alerts.map((a) => a.message).sort()).toEqual([
      'a day ahead',
      'clock far beyond any date',
      'no time at all',
    ]);
    for (const a of alerts) {
      expect(a).toMatchObject({ kind: 'sos', raceId, runnerId, lat: 46.5, lon: 7.9 });
      expect(a.at.getTime()).toBe(a.receivedAt.getTime());
      expect(a.at.getTime()).toBeGreaterThanOrEqual(sentAt - 1000);
      expect(a.at.getTime()).toBeLessThanOrEqual(Date.now());
    }
    // Published like any alert, at the time it was recorded.
    const published = events.filter((e) => e.type === 'alert' && e.deviceId === dev.id);
    expect(published.map((e) => e.type === 'alert' && e.at).sort()).toEqual(
      alerts.map((a) => a.at.toISOString()).sort(),
    );
    // The bad times are in the log.
    const logged = warn.mock.calls
      .map(([obj]) => obj as { sourceTime?: string; problem?: string })
      .filter((o) => o && o.sourceTime !== undefined);
    expect(logged.map((o) => o.sourceTime)).toEqual(
      expect.arrayContaining([
        String(1e20),
        'missing',
        new Date(payload.Events[2].timeStamp as number).toISOString(),
      ]),
    );
    warn.mockRestore();

    // Garmin delivers the batch again: the same alerts are recognised, nothing is recorded twice.
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ alerts: 0 });
    expect(await alertsOf(dev.id)).toHaveLength(3);
  });

  it('SPOT: an SOS whose unixTime cannot be read is recorded once however often the feed shows it', async () => {
    const dev = await addDevice(t.app, { source: 'spot', hardwareId: '0-8880001' });
    const now = Math.floor(Date.now() / 1000);
    const page = {
      response: {
        feedMessageResponse: {
          count: 2,
          messages: {
            message: [
              {
                id: 2,
                messengerId: '0-8880001',
                unixTime: 'garbled',
                messageType: 'SOS',
                latitude: 46.3,
                longitude: 7,
              },
              {
                id: 1,
                messengerId: '0-8880001',
                unixTime: now - 60,
                messageType: 'TRACK',
                latitude: 46.2,
                longitude: 7,
              },
            ],
          },
        },
      },
    };
    // Each poll reads the page anew and hands it to the ingest service (jobs/spot-poll-job.ts does exactly this).
    for (let poll = 0; poll < 3; poll++) {
      const read = readSpotPage(page);
      expect(read.ok).toBe(true);
      if (read.ok) await t.app.ingest.acceptEach('spot', read.batch);
    }
    const alerts = await alertsOf(dev.id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ kind: 'sos', lat: 46.3, lon: 7 });
    expect(alerts[0].at.getTime()).toBe(alerts[0].receivedAt.getTime());
  });
});
