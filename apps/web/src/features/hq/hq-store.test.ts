import { describe, expect, it } from 'vitest';
import type { Alert } from './alert-types';
import {
  activeAlerts,
  ago,
  alertSubject,
  applySnapshot,
  hqTitle,
  mergeResolved,
  newSosIds,
  openCount,
  openSos,
  resolvedAlerts,
  upsertAlert,
  type AlertMap,
} from './hq-store';

let nextId = 1;
function alert(over: Partial<Alert>): Alert {
  return {
    AlertId: nextId++,
    RaceId: 1,
    RunnerId: 10,
    BibNumber: '7',
    RunnerName: 'Ada Lovelace',
    DeviceId: 3,
    DeviceName: 'inReach 3',
    Kind: 'no-movement',
    State: 'open',
    RaisedAt: '2026-05-01T10:00:00Z',
    LastSeenAt: '2026-05-01T10:00:00Z',
    Latitude: 46,
    Longitude: 7,
    Message: 'SOS from inReach',
    MessageKey: null,
    MessageParams: null,
    AcknowledgedBy: null,
    AcknowledgedAt: null,
    ResolvedBy: null,
    ResolvedAt: null,
    Note: null,
    ...over,
  };
}
const mapOf = (...alerts: Alert[]): AlertMap => new Map(alerts.map((a) => [a.AlertId, a]));

describe('HQ alert order', () => {
  it('puts open before acknowledged, SOS on top, newest first', () => {
    const oldSos = alert({ Kind: 'sos', RaisedAt: '2026-05-01T09:00:00Z' });
    const newSos = alert({ Kind: 'sos', RaisedAt: '2026-05-01T09:30:00Z' });
    const newerBattery = alert({ Kind: 'low-battery', RaisedAt: '2026-05-01T11:00:00Z' });
    const ackedSos = alert({ Kind: 'sos', State: 'acknowledged', RaisedAt: '2026-05-01T12:00:00Z' });
    const resolved = alert({ Kind: 'sos', State: 'resolved' });
    const order = activeAlerts(mapOf(newerBattery, ackedSos, oldSos, resolved, newSos)).map((a) => a.AlertId);
    expect(order).toEqual([newSos, oldSos, newerBattery, ackedSos].map((a) => a.AlertId));
  });

  it('lists resolved alerts by resolution time, newest first', () => {
    const a = alert({ State: 'resolved', ResolvedAt: '2026-05-01T10:00:00Z' });
    const b = alert({ State: 'resolved', ResolvedAt: '2026-05-01T11:00:00Z' });
    expect(resolvedAlerts(mapOf(a, b, alert({}))).map((x) => x.AlertId)).toEqual([b.AlertId, a.AlertId]);
  });
});

describe('HQ alert state', () => {
  it('a snapshot replaces the active alerts and keeps the resolved ones', () => {
    const resolved = alert({ State: 'resolved' });
    const gone = alert({});
    const fresh = alert({ Kind: 'sos' });
    const next = applySnapshot(mapOf(resolved, gone), [fresh]);
    expect([...next.keys()].sort()).toEqual([resolved.AlertId, fresh.AlertId].sort());
  });

  it('an event updates one alert, but never moves it back to an earlier state', () => {
    const a = alert({});
    const acked = { ...a, State: 'acknowledged' as const, AcknowledgedBy: 'Dana' };
    let m = upsertAlert(mapOf(a), acked);
    expect(m.get(a.AlertId)?.State).toBe('acknowledged');
    m = upsertAlert(m, a);
    expect(m.get(a.AlertId)?.State).toBe('acknowledged');
    m = mergeResolved(m, [{ ...a, State: 'resolved' }]);
    expect(m.get(a.AlertId)?.State).toBe('resolved');
  });

  it('counts open alerts for the title and finds open SOS alerts', () => {
    const sos = alert({ Kind: 'sos' });
    const m = mapOf(
      sos,
      alert({}),
      alert({ State: 'acknowledged', Kind: 'sos' }),
      alert({ State: 'resolved' }),
    );
    expect(openCount(m)).toBe(2);
    expect(openSos(m).map((a) => a.AlertId)).toEqual([sos.AlertId]);
    expect(hqTitle('Eiger Ultra', 2)).toBe('(2) Race HQ – Eiger Ultra');
    expect(hqTitle('Eiger Ultra', 0)).toBe('Race HQ – Eiger Ultra');
  });

  it('finds SOS alerts that are new since the previous state (the sound cue)', () => {
    const known = alert({ Kind: 'sos' });
    const fresh = alert({ Kind: 'sos' });
    const help = alert({ Kind: 'help' });
    expect(newSosIds(mapOf(known), mapOf(known, fresh, help))).toEqual([fresh.AlertId]);
  });
});

describe('HQ wording', () => {
  it('names the runner, else the device', () => {
    expect(alertSubject({ BibNumber: '12', RunnerName: 'Ada L', DeviceName: 'x', DeviceId: 1 })).toBe(
      '#12 Ada L',
    );
    expect(alertSubject({ BibNumber: null, RunnerName: null, DeviceName: 'inReach 4', DeviceId: 4 })).toBe(
      'inReach 4',
    );
  });

  it('says how long ago', () => {
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(ago('2026-05-01T11:59:30Z', now)).toBe('just now');
    expect(ago('2026-05-01T11:55:00Z', now)).toBe('5 min ago');
    expect(ago('2026-05-01T10:30:00Z', now)).toBe('1 h 30 min ago');
    expect(ago(null, now)).toBe('-');
  });
});
