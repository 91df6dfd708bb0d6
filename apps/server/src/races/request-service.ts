import type { Race, RaceRequest } from '@racebeacon/domain';
import type { CourseService } from '../courses/service';
import type { Db } from '../db/client';
import { notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import * as runnersRepo from '../runners/repository';
import * as racesRepo from './repository';
import { toRace } from './service';

/** Race requests: races that wait for an admin's approval before the public can see them. */
export class RaceRequestService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly courses: CourseService,
  ) {}

  async listPendingRaces(): Promise<Race[]> {
    return (await racesRepo.listRaces(this.db, { approved: false })).map(toRace);
  }

  /** Any race by id (pending or already approved, so a second admin's late look still works); 404 when unknown. */
  /** What an admin needs to judge it: the race, how many runners it has, and its course. */
  async getRaceRequest(raceId: number): Promise<RaceRequest> {
    const row = await racesRepo.findRace(this.db, raceId);
    if (!row) throw notFound(`Race ${raceId} was not found.`);
    const [runnerCount, course] = await Promise.all([
      runnersRepo.countRunners(this.db, raceId),
      this.courses.getCourseForReview(raceId),
    ]);
    return { ...toRace(row), RunnerCount: runnerCount, Course: course };
  }

  /** Approving an approved race is harmless: it answers the race unchanged (and announces nothing). */
  async approveRace(id: number): Promise<Race> {
    const race = await racesRepo.findRace(this.db, id);
    if (!race) throw notFound(`Race ${id} was not found.`);
    if (race.approved) return toRace(race);
    const approved = toRace((await racesRepo.updateRace(this.db, id, { approved: true }))!);
    await this.events.raceChanged(id);
    return approved;
  }
}
