import type { Gender, ManualRunnerStatus, PublicRunner, Runner } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import * as devicesRepo from '../devices/repository';
import { conflict, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import type { RaceService } from '../races/service';
import type { DirectorRunner, DirectorRunnerInput } from './hq-fields';
import * as repo from './repository';

/**
 * The parsed runner body (directorRunnerBodySchema): RunnerId/RaceId/DeviceId in a PUT body never reach here. The
 * HQ fields are left out when absent (an edit keeps them; a create stores null).
 */
export const toFields = (b: DirectorRunnerInput): repo.RunnerFields => ({
  firstName: b.FirstName,
  lastName: b.LastName,
  bibNumber: b.BibNumber,
  gender: b.Gender,
  age: b.Age,
  ...(b.EmergencyContact !== undefined ? { emergencyContact: b.EmergencyContact } : {}),
  ...(b.Phone !== undefined ? { phone: b.Phone } : {}),
  ...(b.HidePosition !== undefined ? { hidePosition: b.HidePosition } : {}),
});

/** The public shape: deliberately built field by field so no device detail can slip in. */
export function toPublicRunner(r: repo.RunnerRow): PublicRunner {
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

export function toRunner(r: repo.RunnerWithDevice): Runner {
  return {
    ...toPublicRunner(r),
    DeviceId: r.deviceId,
    DeviceName: r.deviceName,
    HidePosition: r.hidePosition,
  };
}

/** The director's view: adds the HQ fields (emergency contact, phone), which no public shape carries. */
export function toDirectorRunner(r: repo.RunnerWithDevice): DirectorRunner {
  return {
    ...toRunner(r),
    EmergencyContact: r.emergencyContact,
    Phone: r.phone,
    Status: (r.status as ManualRunnerStatus | null) ?? null,
    StatusReason: r.statusReason,
  };
}

const duplicateBib = (bib: string) =>
  conflict(`Bib number ${bib} is already taken in this race.`, 'duplicate_bib');
const runnerNotFound = (id: number) => notFound(`Runner ${id} was not found in this race.`);

/** Runners of a race: the public list, and the director's changes (each announced to live viewers). */
export class RunnerService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly races: RaceService,
  ) {}

  async listPublicRunners(raceId: number): Promise<PublicRunner[]> {
    await this.races.getApprovedRace(raceId);
    return (await repo.listRunners(this.db, raceId)).map(toPublicRunner);
  }

  async listDirectorRunners(directorId: string, raceId: number): Promise<DirectorRunner[]> {
    await this.races.getOwnedRace(directorId, raceId);
    return (await repo.listRunners(this.db, raceId)).map(toDirectorRunner);
  }

  /** Bib numbers are unique per race: checked first for a clear message, and by the unique index under races. */
  private async ensureBibFree(raceId: number, bib: string | null, exceptRunnerId?: number) {
    if (bib === null) return;
    const other = await repo.findRunnerByBib(this.db, raceId, bib);
    if (other && other.id !== exceptRunnerId) throw duplicateBib(bib);
  }

  async createRunner(directorId: string, raceId: number, body: DirectorRunnerInput): Promise<DirectorRunner> {
    await this.races.getOwnedRace(directorId, raceId);
    await this.ensureBibFree(raceId, body.BibNumber);
    let row;
    try {
      row = await repo.insertRunner(this.db, raceId, toFields(body));
    } catch (err) {
      if (isUniqueViolation(err) && body.BibNumber !== null) throw duplicateBib(body.BibNumber);
      throw err;
    }
    await this.events.raceChanged(raceId);
    return toDirectorRunner({ ...row, deviceId: null, deviceName: null });
  }

  async updateRunner(
    directorId: string,
    raceId: number,
    runnerId: number,
    body: DirectorRunnerInput,
  ): Promise<DirectorRunner> {
    await this.races.getOwnedRace(directorId, raceId);
    await this.ensureBibFree(raceId, body.BibNumber, runnerId);
    try {
      const row = await repo.updateRunner(this.db, raceId, runnerId, toFields(body));
      if (!row) throw runnerNotFound(runnerId);
    } catch (err) {
      if (isUniqueViolation(err) && body.BibNumber !== null) throw duplicateBib(body.BibNumber);
      throw err;
    }
    await this.events.raceChanged(raceId);
    return toDirectorRunner((await repo.findRunner(this.db, raceId, runnerId))!);
  }

  /** Deleting a runner frees the device they held and closes its hand-over row, in one transaction. */
  async deleteRunner(directorId: string, raceId: number, runnerId: number): Promise<void> {
    await this.races.getOwnedRace(directorId, raceId);
    await this.db.transaction(async (tx) => {
      const held = await devicesRepo.findDeviceHeldBy(tx, runnerId);
      if (held && held.raceId === raceId) {
        await devicesRepo.closeOpenAssignment(tx, held.id, new Date());
        await devicesRepo.updateDevice(tx, held.id, { assignedRunnerId: null });
      }
      if (!(await repo.deleteRunner(tx, raceId, runnerId))) throw runnerNotFound(runnerId);
    });
    await this.events.raceChanged(raceId);
  }
}
