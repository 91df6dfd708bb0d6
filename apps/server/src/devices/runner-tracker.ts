import { randomBytes } from 'node:crypto';
import { CLAIM_CODE_SOURCES, CLAIMED_BY_HARDWARE_ID } from '@racebeacon/domain';
import type { AttachTrackerInput, DetachTracker, DeviceSource, RunnerTracker } from '@racebeacon/domain';
import { eq, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import { positions, races, runners } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import { isoOrNull } from '../lib/time';
import type { AuthUser } from '../types';
import * as repo from './repository';
import { isOwnTrackerOf, ownTrackerKeyPrefix } from './own-tracker';
import { newClaimCode } from './own-tracker-claim';
import { checkTracker, feedState } from './service';

/**
 * A runner's own tracker, attached by the race's director (or an admin) from the runner's row: a device created
 * for that race only (own-tracker.ts) and handed to that runner at once.
 */
const PHONE_SOURCES: readonly string[] = ['osmand', 'owntracks'];

const runnerNotFound = (id: number) => notFound(`Runner ${id} was not found.`);

async function findRunner(db: DbOrTx, runnerId: number) {
  const [row] = await db
    .select({
      id: runners.id,
      raceId: runners.raceId,
      firstName: runners.firstName,
      lastName: runners.lastName,
      directorId: races.directorId,
      hasFinished: races.hasFinished,
    })
    .from(runners)
    .innerJoin(races, eq(races.id, runners.raceId))
    .where(eq(runners.id, runnerId));
  return row;
}

export function toRunnerTracker(d: repo.DeviceRow, runnerId: number, now: number): RunnerTracker {
  const own = d.raceId !== null && isOwnTrackerOf(d.trackingKey, d.raceId);
  const last = d.lastPingTime?.getTime() ?? null;
  const pending = d.claimHardwareId !== null;
  return {
    DeviceId: d.id,
    RunnerId: runnerId,
    Name: d.name,
    Source: d.source as DeviceSource,
    HardwareId: d.hardwareId ?? d.claimHardwareId,
    OwnTracker: own,
    Pending: pending,
    // The director passes it to the runner, who sends it from the device (a device without text: admin approval).
    ...(pending && d.claimCode && CLAIM_CODE_SOURCES.includes(d.source) ? { ClaimCode: d.claimCode } : {}),
    ...feedState(d),
    LastFixTime: isoOrNull(d.lastPingTime),
    LastFixAgeSeconds: last === null ? null : Math.max(0, Math.round((now - last) / 1000)),
    LastLatitude: d.lastLat,
    LastLongitude: d.lastLon,
    BatteryState: d.batteryPercent !== null ? `${Math.round(d.batteryPercent)}%` : d.batteryState,
    // A phone the director attached needs its key typed into the app; no other key ever reaches a director.
    ...(own && PHONE_SOURCES.includes(d.source) ? { TrackingKey: d.trackingKey } : {}),
  };
}

export class RunnerTrackerService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly now: () => number = Date.now,
  ) {}

  /** The runner, if the user directs its race or is an admin; another director is told it does not exist. */
  private async runnerFor(db: DbOrTx, user: AuthUser, runnerId: number) {
    const runner = await findRunner(db, runnerId);
    if (!runner || (runner.directorId !== user.id && !user.isAdmin)) throw runnerNotFound(runnerId);
    return runner;
  }

  /** The tracker check: the runner's tracker with its newest fix and that fix's age, or null when it has none. */
  async get(user: AuthUser, runnerId: number): Promise<RunnerTracker | null> {
    await this.runnerFor(this.db, user, runnerId);
    const device = await repo.findDeviceHeldBy(this.db, runnerId);
    return device ? toRunnerTracker(device, runnerId, this.now()) : null;
  }

  async attach(user: AuthUser, runnerId: number, body: AttachTrackerInput): Promise<RunnerTracker> {
    checkTracker(body);
    let raceId = 0;
    const device = await this.db
      .transaction(async (tx) => {
        const runner = await this.runnerFor(tx, user, runnerId);
        raceId = runner.raceId;
        if (runner.hasFinished)
          throw conflict('This race has ended: no tracker can be attached.', 'race_finished');
        if (await repo.findDeviceHeldBy(tx, runnerId))
          throw conflict('This runner already holds a device: detach it first.', 'runner_has_device');
        const name = body.Name ?? `${runner.firstName} ${runner.lastName}`.trim();
        const fields = {
          name,
          feedId: body.FeedId,
          feedPassword: body.FeedPassword,
          raceId,
          assignedRunnerId: runnerId,
        };
        const same = body.HardwareId
          ? await repo.findDeviceBySourceHardware(tx, body.Source, body.HardwareId)
          : undefined;
        // The same tracker detached earlier from a runner of this race (proven then, its fixes kept).
        const reattach = same && isOwnTrackerOf(same.trackingKey, raceId) && same.assignedRunnerId === null;
        let row: repo.DeviceRow;
        if (body.HardwareId && CLAIMED_BY_HARDWARE_ID.includes(body.Source) && !reattach) {
          // A claim (issue 24): the id is kept aside, never in hardware_id, until possession is proven. Whether a
          // device already has it is not looked at, so the answer is the same for any id (no existence oracle).
          row = await repo.insertDevice(tx, {
            ...fields,
            source: body.Source,
            hardwareId: null,
            claimHardwareId: body.HardwareId,
            claimCode: newClaimCode(),
            trackingKey: ownTrackerKeyPrefix(raceId) + randomBytes(32).toString('base64url'),
            expectedIntervalS: null,
          });
        } else if (same) {
          // A MapShare name is a public page: another device with it is refused.
          if (!reattach)
            throw conflict(
              'Another device already has this source and hardware id.',
              'duplicate_hardware_id',
            );
          row = (await repo.updateDevice(tx, same.id, { ...fields, feedError: null, feedNextPollAt: null }))!;
        } else {
          row = await repo.insertDevice(tx, {
            ...fields,
            source: body.Source,
            hardwareId: body.HardwareId,
            trackingKey: ownTrackerKeyPrefix(raceId) + randomBytes(32).toString('base64url'),
            expectedIntervalS: null,
          });
        }
        await repo.openAssignment(tx, { deviceId: row.id, raceId, runnerId, at: new Date() });
        return (await repo.findDevice(tx, row.id))!;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err))
          throw conflict('This runner or this tracker is already taken (try again).', 'runner_has_device');
        throw err;
      });
    // Live viewers see the runner's tracker; the feed pollers wake up and check it at once.
    await this.events.raceChanged(raceId);
    return toRunnerTracker(device, runnerId, this.now());
  }

  /**
   * Takes the runner's tracker away: an own tracker that never stored a fix is deleted; one with fixes (and a
   * fleet device) is only taken from the runner, so the runner's track stays.
   */
  async detach(user: AuthUser, runnerId: number): Promise<DetachTracker> {
    const out = await this.db.transaction(async (tx) => {
      const runner = await this.runnerFor(tx, user, runnerId);
      const held = await repo.findDeviceHeldBy(tx, runnerId);
      if (!held) throw notFound('This runner has no tracker.', 'no_tracker');
      const device = (await repo.findDeviceForUpdate(tx, held.id))!;
      await repo.closeOpenAssignment(tx, device.id, new Date());
      const own = isOwnTrackerOf(device.trackingKey, runner.raceId);
      const [fix] = await tx
        .select({ n: sql<number>`1` })
        .from(positions)
        .where(eq(positions.deviceId, device.id))
        .limit(1);
      const deleted = own && !fix;
      if (deleted) await repo.deleteDevice(tx, device.id);
      else await repo.updateDevice(tx, device.id, { assignedRunnerId: null });
      return { raceId: runner.raceId, result: { RunnerId: runnerId, DeviceId: device.id, Deleted: deleted } };
    });
    await this.events.raceChanged(out.raceId);
    return out.result;
  }
}
