import { describe, expect, it } from 'vitest';
import { toDevice } from '../src/devices/service';
import type { DeviceRow } from '../src/devices/repository';

/** The Devices screen's battery: a reported percentage wins over the device's word (LOW/GOOD), which is the fallback. */
function row(batteryPercent: number | null, batteryState: string | null): DeviceRow {
  return {
    id: 7,
    name: 'Tracker 7',
    batteryPercent,
    batteryState,
    lastPingTime: null,
    raceId: null,
    assignedRunnerId: null,
    source: 'osmand',
    hardwareId: null,
    trackingKey: 'k',
    expectedIntervalS: null,
  } as unknown as DeviceRow;
}

describe('device battery shown to directors and admins', () => {
  it.each([
    [81, 'GOOD', '81%'],
    [16.4, 'LOW', '16%'],
    [null, 'LOW', 'LOW'],
    [null, null, null],
    [0, null, '0%'],
  ])('percent %s and state %s read %s', (percent, state, shown) => {
    expect(toDevice(row(percent, state)).BatteryState).toBe(shown);
  });
});
