import type { Course, Race } from '@racebeacon/domain';
import type { Db } from '../db/client';
import { notFound } from '../lib/errors';
import * as racesRepo from '../repositories/races';
import * as runnersRepo from '../repositories/runners';
import { getCourseForReview } from './courses';
import { toRace } from './dto';

/** What an admin needs to judge a race request: the race, how many runners it has, and its course. */
export type RaceRequestDetail = Race & { RunnerCount: number; Course: Course | null };

/** Any race by id (pending or already approved, so a second admin's late look still works); 404 when unknown. */
export async function getRaceRequest(db: Db, publicUrl: string, raceId: number): Promise<RaceRequestDetail> {
  const row = await racesRepo.findRace(db, raceId);
  if (!row) throw notFound(`Race ${raceId} was not found.`);
  const [runnerCount, course] = await Promise.all([
    runnersRepo.countRunners(db, raceId),
    getCourseForReview(db, publicUrl, raceId),
  ]);
  return { ...toRace(row), RunnerCount: runnerCount, Course: course };
}
