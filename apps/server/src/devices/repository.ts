import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { deviceAssignments, devices, races, runners } from '../db/schema';

export type DeviceRow = typeof devices.$inferSelect;
export type NewDevice = Pick<
  typeof devices.$inferInsert,
  | 'name'
  | 'source'
  | 'hardwareId'
  | 'trackingKey'
  | 'expectedIntervalS'
  | 'feedId'
  | 'feedPassword'
  | 'raceId'
  | 'claimHardwareId'
  | 'claimCode'
>;
export type AdminDeviceRow = DeviceRow & {
  raceName: string | null;
  runnerFirstName: string | null;
  runnerLastName: string | null;
};

/** Devices with the names of their race and runner (the admin view). */
function selectWithNames(db: DbOrTx) {
  return db
    .select({
      device: devices,
      raceName: races.name,
      runnerFirstName: runners.firstName,
      runnerLastName: runners.lastName,
    })
    .from(devices)
    .leftJoin(races, eq(races.id, devices.raceId))
    .leftJoin(runners, eq(runners.id, devices.assignedRunnerId))
    .$dynamic();
}

type WithNames = Awaited<ReturnType<typeof selectWithNames>>[number];
const flatten = (r: WithNames): AdminDeviceRow => ({
  ...r.device,
  raceName: r.raceName,
  runnerFirstName: r.runnerFirstName,
  runnerLastName: r.runnerLastName,
});

export async function listDevicesWithNames(db: DbOrTx): Promise<AdminDeviceRow[]> {
  return (await selectWithNames(db).orderBy(asc(devices.name), asc(devices.id))).map(flatten);
}

export async function findDeviceWithNames(db: DbOrTx, id: number): Promise<AdminDeviceRow | undefined> {
  const [r] = await selectWithNames(db).where(eq(devices.id, id));
  return r ? flatten(r) : undefined;
}

export async function findDevice(db: DbOrTx, id: number): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.id, id));
  return row;
}

/** Same, locking the row until the transaction ends (assignment decisions depend on its current state). */
export async function findDeviceForUpdate(db: DbOrTx, id: number): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.id, id)).for('update');
  return row;
}

export async function findDeviceHeldBy(db: DbOrTx, runnerId: number): Promise<DeviceRow | undefined> {
  const [row] = await db.select().from(devices).where(eq(devices.assignedRunnerId, runnerId));
  return row;
}

export async function findDeviceBySourceHardware(
  db: DbOrTx,
  source: string,
  hardwareId: string,
): Promise<DeviceRow | undefined> {
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.source, source), eq(devices.hardwareId, hardwareId)));
  return row;
}

/** Devices in a race that no runner holds. */
export async function listAvailableDevices(
  db: DbOrTx,
  raceId: number,
): Promise<{ id: number; name: string }[]> {
  return db
    .select({ id: devices.id, name: devices.name })
    .from(devices)
    .where(and(eq(devices.raceId, raceId), isNull(devices.assignedRunnerId)))
    .orderBy(asc(devices.name), asc(devices.id));
}

export async function insertDevice(db: DbOrTx, values: NewDevice): Promise<DeviceRow> {
  const [row] = await db.insert(devices).values(values).returning();
  return row;
}

export async function updateDevice(
  db: DbOrTx,
  id: number,
  values: Partial<
    Pick<
      DeviceRow,
      | 'name'
      | 'source'
      | 'hardwareId'
      | 'trackingKey'
      | 'raceId'
      | 'assignedRunnerId'
      | 'expectedIntervalS'
      | 'feedId'
      | 'feedPassword'
      | 'feedError'
      | 'feedNextPollAt'
      | 'claimHardwareId'
      | 'claimCode'
    >
  >,
): Promise<DeviceRow | undefined> {
  const [row] = await db.update(devices).set(values).where(eq(devices.id, id)).returning();
  return row;
}

export async function deleteDevice(db: DbOrTx, id: number): Promise<DeviceRow | undefined> {
  const [row] = await db.delete(devices).where(eq(devices.id, id)).returning();
  return row;
}

/** Closes the device's open hand-over row, if any (ingestion attributes fixes by these intervals). */
export async function closeOpenAssignment(db: DbOrTx, deviceId: number, at: Date): Promise<void> {
  await db
    .update(deviceAssignments)
    .set({ unassignedAt: at })
    .where(and(eq(deviceAssignments.deviceId, deviceId), sql`${deviceAssignments.unassignedAt} is null`));
}

export async function openAssignment(
  db: DbOrTx,
  values: { deviceId: number; raceId: number; runnerId: number; at: Date },
): Promise<void> {
  await db.insert(deviceAssignments).values({
    deviceId: values.deviceId,
    raceId: values.raceId,
    runnerId: values.runnerId,
    assignedAt: values.at,
  });
}

export async function listAssignments(db: DbOrTx, deviceId: number) {
  return db
    .select()
    .from(deviceAssignments)
    .where(eq(deviceAssignments.deviceId, deviceId))
    .orderBy(asc(deviceAssignments.assignedAt), asc(deviceAssignments.id));
}
