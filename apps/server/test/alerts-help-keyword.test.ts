import type { Alert } from '@racebeacon/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDevice, addRace, addRunner, assign } from './ingest-fixtures';
import { call } from './support/api';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

const INREACH_TOKEN = 'hq-keyword-secret';

describe.each(dbKinds)('race HQ: an inReach text with the race’s help keyword (%s)', (kind) => {
  let t: TestContext;
  let director: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { INREACH_OUTBOUND_TOKEN: INREACH_TOKEN });
    director = await t.issuer.director('director-1');
  });
  afterAll(async () => t?.close());

  const text = (imei: string, freeText: string) => ({
    Version: '2.0',
    Events: [
      {
        imei,
        messageCode: 3,
        freeText,
        timeStamp: Date.now() - 60_000,
        addresses: [],
        point: { latitude: 46.57, longitude: 7.93, altitude: 1900, gpsFix: 2, course: 0, speed: 0 },
        status: { autonomous: 0, lowBattery: 0, intervalChange: 0, resetDetected: 0 },
      },
    ],
  });

  const setup = async (n: number, keyword: string | null) => {
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    const runnerId = await addRunner(t.app, raceId, 'Text');
    const imei = `30043407${kind.length}${n}00000`;
    const d = await addDevice(t.app, { source: 'inreach', hardwareId: imei });
    await assign(t.app, d.id, raceId, runnerId, new Date(Date.now() - 7200_000));
    if (keyword !== null) {
      const url = `/api/director/races/${raceId}/alert-settings`;
      const put = await call(t, 'PUT', url, { token: director, body: { HelpKeyword: keyword } });
      expect(put.statusCode).toBe(200);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/ingest/inreach',
      headers: { 'x-outbound-auth-token': INREACH_TOKEN },
      payload: text(imei, 'Need HELP at km 30'),
    });
    expect(res.statusCode).toBe(200);
    const list = await call(t, 'GET', `/api/director/races/${raceId}/alerts?state=open`, { token: director });
    return { runnerId, deviceId: d.id, alerts: list.json<Alert[]>() };
  };

  it('with the keyword configured (any case): one open help alert for the runner holding the device', async () => {
    const { runnerId, deviceId, alerts } = await setup(1, 'help');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ RunnerId: runnerId, DeviceId: deviceId, Kind: 'help', State: 'open' });
    expect(alerts[0].Message).toContain('Need HELP at km 30');
  });

  it('without a keyword configured: no alert', async () => {
    const { alerts } = await setup(2, null);
    expect(alerts).toHaveLength(0);
  });
});
