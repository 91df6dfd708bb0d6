import { randomBytes } from 'node:crypto';
import type { AdminDevice, Device, DeviceSource } from '@racebeacon/domain';
import type { Db, DbOrTx } from '../db/client';
import { conflict, notFound } from '../lib/errors';
import { isUniqueViolation } from '../repositories/db-errors';
import * as repo from '../repositories/devices';
import * as racesRepo from '../repositories/races';
import * as runnersRepo from '../repositories/runners';
import { toAdminDevice, toDevice } from './dto';
import { getOwnedRace } from './races';

/** 32 random bytes, base64url: the device's secret for ingestion. Only admin responses ever carry it. */
export const newTrackingKey = () => randomBytes(32).toString('base64url');

const deviceNotFound = (id: number) => notFound(`Device ${id} was not found.`);
const duplicateHardware = () =>
  conflict('Another device already has this source and hardware id.', 'duplicate_hardware_id');

async function adminView(db: DbOrTx, id: number): Promise<AdminDevice> {
  const row = await repo.findDeviceWithNames(db, id);
  if (!row) throw deviceNotFound(id);
  return toAdminDevice(row);
}

// --- admin ---

export async function listDevices(db: Db): Promise<AdminDevice[]> {
  return (await repo.listDevicesWithNames(db)).map(toAdminDevice);
}

export async function createDevice(
  db: Db,
  body: { Name: string; Source: DeviceSource; HardwareId: string | null },
): Promise<AdminDevice> {
  const hardwareId = body.HardwareId || null;
  if (hardwareId && (await repo.findDeviceBySourceHardware(db, body.Source, hardwareId)))
    throw duplicateHardware();
  try {
    const row = await repo.insertDevice(db, {
      name: body.Name,
      source: body.Source,
      hardwareId,
      trackingKey: newTrackingKey(),
    });
    return adminView(db, row.id);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateHardware();
    throw err;
  }
}

export async function updateDevice(
  db: Db,
  id: number,
  body: { Name?: string; Source?: DeviceSource; HardwareId?: string | null },
): Promise<AdminDevice> {
  const current = await repo.findDevice(db, id);
  if (!current) throw deviceNotFound(id);
  const source = body.Source ?? current.source;
  const hardwareId = body.HardwareId === undefined ? current.hardwareId : body.HardwareId || null;
  if (hardwareId) {
    const other = await repo.findDeviceBySourceHardware(db, source, hardwareId);
    if (other && other.id !== id) throw duplicateHardware();
  }
  try {
    await repo.updateDevice(db, id, { name: body.Name ?? current.name, source, hardwareId });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateHardware();
    throw err;
  }
  return adminView(db, id);
}

export async function rotateTrackingKey(db: Db, id: number): Promise<AdminDevice> {
  if (!(await repo.updateDevice(db, id, { trackingKey: newTrackingKey() }))) throw deviceNotFound(id);
  return adminView(db, id);
}

/** Returns the race the device was in (its viewers must be told), or null. */
export async function deleteDevice(db: Db, id: number): Promise<{ raceId: number | null }> {
  return db.transaction(async (tx) => {
    const row = await repo.findDeviceForUpdate(tx, id);
    if (!row) throw deviceNotFound(id);
    await repo.closeOpenAssignment(tx, id, new Date());
    await repo.deleteDevice(tx, id);
    return { raceId: row.raceId };
  });
}

/**
 * Puts a device in a race that has not started. Moving it from another race frees it from its runner there and
 * closes that hand-over. Assigning it again to the race it is already in changes nothing.
 */
export async function assignDeviceToRace(
  db: Db,
  id: number,
  raceId: number,
): Promise<{ device: AdminDevice; previousRaceId: number | null }> {
  return db.transaction(async (tx) => {
    const device = await repo.findDeviceForUpdate(tx, id);
    if (!device) throw deviceNotFound(id);
    const race = await racesRepo.findRace(tx, raceId);
    if (!race) throw notFound(`Race ${raceId} was not found.`);
    if (race.hasStarted) throw conflict('Devices can only be assigned to a race that has not started.');
    const previousRaceId = device.raceId;
    if (device.raceId !== raceId) {
      await repo.closeOpenAssignment(tx, id, new Date());
      await repo.updateDevice(tx, id, { raceId, assignedRunnerId: null });
    }
    return { device: await adminView(tx, id), previousRaceId };
  });
}

/** Takes the device out of its race, and so from its runner too. */
export async function unassignDeviceFromRace(
  db: Db,
  id: number,
): Promise<{ device: AdminDevice; previousRaceId: number | null }> {
  return db.transaction(async (tx) => {
    const device = await repo.findDeviceForUpdate(tx, id);
    if (!device) throw deviceNotFound(id);
    await repo.closeOpenAssignment(tx, id, new Date());
    await repo.updateDevice(tx, id, { raceId: null, assignedRunnerId: null });
    return { device: await adminView(tx, id), previousRaceId: device.raceId };
  });
}

// --- director ---

export async function listAvailableDevices(
  db: Db,
  directorId: string,
  raceId: number,
): Promise<{ DeviceId: number; Name: string }[]> {
  await getOwnedRace(db, directorId, raceId);
  return (await repo.listAvailableDevices(db, raceId)).map((d) => ({ DeviceId: d.id, Name: d.name }));
}

/**
 * Gives a device of the race to one of its runners. The device must be in that race and not held; the runner must
 * not hold another device. Every hand-over opens a device_assignments row (ingestion attributes fixes by it).
 */
export async function assignDeviceToRunner(
  db: Db,
  directorId: string,
  deviceId: number,
  raceId: number,
  runnerId: number,
): Promise<Device> {
  await getOwnedRace(db, directorId, raceId);
  try {
    return await db.transaction(async (tx) => {
      const runner = await runnersRepo.findRunner(tx, raceId, runnerId);
      if (!runner) throw notFound(`Runner ${runnerId} was not found in this race.`);
      const device = await repo.findDeviceForUpdate(tx, deviceId);
      if (!device) throw deviceNotFound(deviceId);
      if (device.raceId !== raceId)
        throw conflict('This device is not assigned to this race.', 'device_not_in_race');
      if (device.assignedRunnerId === runnerId) return toDevice(device);
      if (device.assignedRunnerId !== null)
        throw conflict('This device is already held by another runner.', 'device_taken');
      if (runner.deviceId !== null)
        throw conflict('This runner already holds a device.', 'runner_has_device');
      const now = new Date();
      await repo.closeOpenAssignment(tx, deviceId, now);
      const row = await repo.updateDevice(tx, deviceId, { assignedRunnerId: runnerId });
      await repo.openAssignment(tx, { deviceId, raceId, runnerId, at: now });
      return toDevice(row!);
    });
  } catch (err) {
    // Two hand-overs racing for the same runner: the unique index on assigned_runner_id decides.
    if (isUniqueViolation(err)) throw conflict('This runner already holds a device.', 'runner_has_device');
    throw err;
  }
}

/** Frees a device of the race from its runner; it stays in the race. */
export async function unassignDeviceFromRunner(
  db: Db,
  directorId: string,
  deviceId: number,
  raceId: number,
): Promise<Device> {
  await getOwnedRace(db, directorId, raceId);
  return db.transaction(async (tx) => {
    const device = await repo.findDeviceForUpdate(tx, deviceId);
    if (!device || device.raceId !== raceId)
      throw notFound(`Device ${deviceId} is not assigned to this race.`);
    await repo.closeOpenAssignment(tx, deviceId, new Date());
    const row = await repo.updateDevice(tx, deviceId, { assignedRunnerId: null });
    return toDevice(row!);
  });
}
