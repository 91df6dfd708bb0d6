import type {
  AdminDevice,
  Device,
  DeviceSource,
  Gender,
  PublicRunner,
  Race,
  Runner,
} from '@racebeacon/domain';
import type { AdminDeviceRow, DeviceRow } from '../repositories/devices';
import type { RaceRow } from '../repositories/races';
import type { RunnerRow, RunnerWithDevice } from '../repositories/runners';

/** Row → API entity (spec PascalCase). Times as ISO 8601 with offset. */
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRace(r: RaceRow): Race {
  return {
    RaceId: r.id,
    Name: r.name,
    Description: r.description,
    Location: r.location,
    StartTime: iso(r.startTime),
    HasStarted: r.hasStarted,
    HasFinished: r.hasFinished,
    Approved: r.approved,
    DirectorId: r.directorId,
    ClockStartedAt: iso(r.clockStartedAt),
    ClockStoppedAt: iso(r.clockStoppedAt),
  };
}

/** The public shape: deliberately built field by field so no device detail can slip in. */
export function toPublicRunner(r: RunnerRow): PublicRunner {
  return {
    RunnerId: r.id,
    RaceId: r.raceId,
    FirstName: r.firstName,
    LastName: r.lastName,
    BibNumber: r.bibNumber,
    Gender: r.gender as Gender,
    Age: r.age,
  };
}

export function toRunner(r: RunnerWithDevice): Runner {
  return { ...toPublicRunner(r), DeviceId: r.deviceId, DeviceName: r.deviceName };
}

export function toDevice(d: DeviceRow): Device {
  return {
    DeviceId: d.id,
    Name: d.name,
    BatteryState: d.batteryState ?? (d.batteryPercent === null ? null : `${Math.round(d.batteryPercent)}%`),
    LastPingTime: iso(d.lastPingTime),
    RaceId: d.raceId,
    AssignedRunnerId: d.assignedRunnerId,
    Source: d.source as DeviceSource,
    HardwareId: d.hardwareId,
  };
}

export function toAdminDevice(d: AdminDeviceRow): AdminDevice {
  const runnerName = [d.runnerFirstName, d.runnerLastName].filter(Boolean).join(' ');
  return {
    ...toDevice(d),
    TrackingKey: d.trackingKey,
    RaceName: d.raceName,
    RunnerName: d.assignedRunnerId === null ? null : runnerName || null,
  };
}
