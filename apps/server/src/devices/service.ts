import { randomBytes } from 'node:crypto';
import type {
  AvailableDevice,
  Device,
  DeviceCreateInput,
  DeviceSource,
  DeviceUpdateInput,
} from '@racebeacon/domain';
import { trackerProblem } from '@racebeacon/domain';
import type { Db, DbOrTx } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import { badRequest, conflict, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import { isoOrNull } from '../lib/time';
import * as racesRepo from '../races/repository';
import type { RaceService } from '../races/service';
import * as runnersRepo from '../runners/repository';
import * as repo from './repository';
import { ownTrackerRace } from './own-tracker';
import { approveClaim } from './own-tracker-claim';
import type { AdminDeviceWithInterval, DeviceIntervalInput } from './interval';

/** 32 random bytes, base64url: the device's secret for ingestion. Only admin responses ever carry it. */
export const newTrackingKey = () => randomBytes(32).toString('base64url');

export function toDevice(d: repo.DeviceRow): Device {
  return {
    DeviceId: d.id,
    Name: d.name,
    // A percentage says more than a word: 81 % and 16 % are both "LOW" or "GOOD" to some devices.
    BatteryState: d.batteryPercent !== null ? `${Math.round(d.batteryPercent)}%` : d.batteryState,
    LastPingTime: isoOrNull(d.lastPingTime),
    RaceId: d.raceId,
    AssignedRunnerId: d.assignedRunnerId,
    Source: d.source as DeviceSource,
    HardwareId: d.hardwareId,
  };
}

/** The admin's view: the only shape that carries TrackingKey (and the device's own expected interval). */
export function toAdminDevice(d: repo.AdminDeviceRow): AdminDeviceWithInterval {
  const runnerName = [d.runnerFirstName, d.runnerLastName].filter(Boolean).join(' ');
  return {
    ...toDevice(d),
    TrackingKey: d.trackingKey,
    RaceName: d.raceName,
    RunnerName: d.assignedRunnerId === null ? null : runnerName || null,
    ExpectedIntervalSeconds: d.expectedIntervalS,
    PendingHardwareId: d.claimHardwareId,
    ...feedState(d),
    UplinksWithoutPosition: d.uplinksWithoutPosition,
    LastUplinkWithoutPositionAt: isoOrNull(d.lastUplinkWithoutPositionAt),
  };
}

/** A device's own feed as shown (the password is write-only: only whether there is one). */
export const feedState = (d: repo.DeviceRow) => ({
  FeedId: d.feedId,
  HasFeedPassword: !!d.feedPassword,
  FeedPolledAt: isoOrNull(d.feedPolledAt),
  FeedError: d.feedError,
});

/** 400 when the source cannot be polled from (or identified by) what it was given. */
export function checkTracker(t: { Source: string; HardwareId: string | null; FeedId: string | null }) {
  const problem = trackerProblem(t);
  if (problem) throw badRequest(problem, 'invalid_tracker');
}

const deviceNotFound = (id: number) => notFound(`Device ${id} was not found.`);
const duplicateHardware = () =>
  conflict('Another device already has this source and hardware id.', 'duplicate_hardware_id');

/**
 * Devices: the admin's inventory (the only place tracking keys are shown), which race holds a device, and the
 * director's hand-overs to runners. A change to a race's devices is announced to that race's live viewers.
 */
export class DeviceService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly races: RaceService,
  ) {}

  private async adminView(db: DbOrTx, id: number): Promise<AdminDeviceWithInterval> {
    const row = await repo.findDeviceWithNames(db, id);
    if (!row) throw deviceNotFound(id);
    return toAdminDevice(row);
  }

  // --- admin ---

  async listDevices(): Promise<AdminDeviceWithInterval[]> {
    return (await repo.listDevicesWithNames(this.db)).map(toAdminDevice);
  }

  async createDevice(body: DeviceCreateInput & DeviceIntervalInput): Promise<AdminDeviceWithInterval> {
    const hardwareId = body.HardwareId || null;
    const feedId = body.FeedId ?? null;
    checkTracker({ Source: body.Source, HardwareId: hardwareId, FeedId: feedId });
    if (hardwareId && (await repo.findDeviceBySourceHardware(this.db, body.Source, hardwareId)))
      throw duplicateHardware();
    try {
      const row = await repo.insertDevice(this.db, {
        name: body.Name,
        source: body.Source,
        hardwareId,
        trackingKey: newTrackingKey(),
        expectedIntervalS: body.ExpectedIntervalSeconds ?? null,
        feedId,
        feedPassword: body.FeedPassword || null,
      });
      return this.adminView(this.db, row.id);
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateHardware();
      throw err;
    }
  }

  async updateDevice(
    id: number,
    body: DeviceUpdateInput & DeviceIntervalInput,
  ): Promise<AdminDeviceWithInterval> {
    const current = await repo.findDevice(this.db, id);
    if (!current) throw deviceNotFound(id);
    const source = body.Source ?? current.source;
    const hardwareId = body.HardwareId === undefined ? current.hardwareId : body.HardwareId || null;
    const feedId = body.FeedId === undefined ? current.feedId : body.FeedId;
    const feedPassword = body.FeedPassword === undefined ? current.feedPassword : body.FeedPassword || null;
    checkTracker({ Source: source, HardwareId: hardwareId, FeedId: feedId });
    // A changed feed is polled afresh: its error and back-off are forgotten (the 2-minute spacing stays).
    const feedChanged =
      source !== current.source ||
      hardwareId !== current.hardwareId ||
      feedId !== current.feedId ||
      feedPassword !== current.feedPassword;
    if (hardwareId) {
      const other = await repo.findDeviceBySourceHardware(this.db, source, hardwareId);
      if (other && other.id !== id) throw duplicateHardware();
    }
    try {
      const expectedIntervalS =
        body.ExpectedIntervalSeconds === undefined ? current.expectedIntervalS : body.ExpectedIntervalSeconds;
      await repo.updateDevice(this.db, id, {
        name: body.Name ?? current.name,
        source,
        hardwareId,
        expectedIntervalS,
        feedId,
        feedPassword,
        ...(feedChanged ? { feedError: null, feedNextPollAt: null } : {}),
        // An admin typing the hardware id of a runner's own tracker waiting for proof decides it: no claim left.
        ...(hardwareId && current.claimHardwareId ? { claimHardwareId: null, claimCode: null } : {}),
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateHardware();
      throw err;
    }
    const device = await this.adminView(this.db, id);
    // Viewers of the device's race see its name.
    if (device.RaceId !== null) await this.events.raceChanged(device.RaceId);
    return device;
  }

  /** A runner's own tracker's claimed id, approved: fixes with that id are received for it from now on. */
  async approveClaim(id: number): Promise<AdminDeviceWithInterval> {
    const raceId = await approveClaim(this.db, id);
    if (raceId !== null) await this.events.raceChanged(raceId);
    return this.adminView(this.db, id);
  }

  async rotateTrackingKey(id: number): Promise<AdminDeviceWithInterval> {
    if (!(await repo.updateDevice(this.db, id, { trackingKey: newTrackingKey() }))) throw deviceNotFound(id);
    return this.adminView(this.db, id);
  }

  async deleteDevice(id: number): Promise<void> {
    const raceId = await this.db.transaction(async (tx) => {
      const row = await repo.findDeviceForUpdate(tx, id);
      if (!row) throw deviceNotFound(id);
      await repo.closeOpenAssignment(tx, id, new Date());
      await repo.deleteDevice(tx, id);
      return row.raceId;
    });
    if (raceId !== null) await this.events.raceChanged(raceId);
  }

  /**
   * Puts a device in a race that has not started. Moving it from another race frees it from its runner there and
   * closes that hand-over. Assigning it again to the race it is already in changes nothing.
   */
  async assignDeviceToRace(id: number, raceId: number): Promise<AdminDeviceWithInterval> {
    const { device, previousRaceId } = await this.db.transaction(async (tx) => {
      const row = await repo.findDeviceForUpdate(tx, id);
      if (!row) throw deviceNotFound(id);
      const race = await racesRepo.findRace(tx, raceId);
      if (!race) throw notFound(`Race ${raceId} was not found.`);
      if (race.hasStarted) throw conflict('Devices can only be assigned to a race that has not started.');
      // A runner's own tracker (attached by a director) belongs to its race only.
      const ownRace = ownTrackerRace(row.trackingKey);
      if (ownRace !== null && ownRace !== raceId)
        throw conflict("This is a runner's own tracker of another race.", 'own_tracker');
      if (row.raceId !== raceId) {
        await repo.closeOpenAssignment(tx, id, new Date());
        await repo.updateDevice(tx, id, { raceId, assignedRunnerId: null });
      }
      return { device: await this.adminView(tx, id), previousRaceId: row.raceId };
    });
    if (previousRaceId !== null && previousRaceId !== raceId) await this.events.raceChanged(previousRaceId);
    await this.events.raceChanged(raceId);
    return device;
  }

  /** Takes the device out of its race, and so from its runner too. */
  async unassignDeviceFromRace(id: number): Promise<AdminDeviceWithInterval> {
    const { device, previousRaceId } = await this.db.transaction(async (tx) => {
      const row = await repo.findDeviceForUpdate(tx, id);
      if (!row) throw deviceNotFound(id);
      await repo.closeOpenAssignment(tx, id, new Date());
      await repo.updateDevice(tx, id, { raceId: null, assignedRunnerId: null });
      return { device: await this.adminView(tx, id), previousRaceId: row.raceId };
    });
    if (previousRaceId !== null) await this.events.raceChanged(previousRaceId);
    return device;
  }

  // --- director ---

  async listAvailableDevices(directorId: string, raceId: number): Promise<AvailableDevice[]> {
    await this.races.getOwnedRace(directorId, raceId);
    return (await repo.listAvailableDevices(this.db, raceId)).map((d) => ({ DeviceId: d.id, Name: d.name }));
  }

  /**
   * Gives a device of the race to one of its runners. The device must be in that race and not held; the runner
   * must not hold another device. Every hand-over opens a device_assignments row (ingestion attributes fixes by
   * it).
   */
  async assignDeviceToRunner(
    directorId: string,
    deviceId: number,
    raceId: number,
    runnerId: number,
  ): Promise<Device> {
    await this.races.getOwnedRace(directorId, raceId);
    let device: Device;
    try {
      device = await this.db.transaction(async (tx) => {
        const runner = await runnersRepo.findRunner(tx, raceId, runnerId);
        if (!runner) throw notFound(`Runner ${runnerId} was not found in this race.`);
        const row = await repo.findDeviceForUpdate(tx, deviceId);
        if (!row) throw deviceNotFound(deviceId);
        if (row.raceId !== raceId)
          throw conflict('This device is not assigned to this race.', 'device_not_in_race');
        if (row.assignedRunnerId === runnerId) return toDevice(row);
        if (row.assignedRunnerId !== null)
          throw conflict('This device is already held by another runner.', 'device_taken');
        if (runner.deviceId !== null)
          throw conflict('This runner already holds a device.', 'runner_has_device');
        const now = new Date();
        await repo.closeOpenAssignment(tx, deviceId, now);
        const updated = await repo.updateDevice(tx, deviceId, { assignedRunnerId: runnerId });
        await repo.openAssignment(tx, { deviceId, raceId, runnerId, at: now });
        return toDevice(updated!);
      });
    } catch (err) {
      // Two hand-overs racing for the same runner: the unique index on assigned_runner_id decides.
      if (isUniqueViolation(err)) throw conflict('This runner already holds a device.', 'runner_has_device');
      throw err;
    }
    await this.events.raceChanged(raceId);
    return device;
  }

  /** Frees a device of the race from its runner; it stays in the race. */
  async unassignDeviceFromRunner(directorId: string, deviceId: number, raceId: number): Promise<Device> {
    await this.races.getOwnedRace(directorId, raceId);
    const device = await this.db.transaction(async (tx) => {
      const row = await repo.findDeviceForUpdate(tx, deviceId);
      if (!row || row.raceId !== raceId) throw notFound(`Device ${deviceId} is not assigned to this race.`);
      await repo.closeOpenAssignment(tx, deviceId, new Date());
      return toDevice((await repo.updateDevice(tx, deviceId, { assignedRunnerId: null }))!);
    });
    await this.events.raceChanged(raceId);
    return device;
  }
}
