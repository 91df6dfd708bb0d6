import {
  publicMoment,
  racePrivacy,
  resultsToCsv,
  trailIsPublic,
  runnersToCsv,
  trackToGpx,
  type LeaderboardRow,
  type ResultLine,
} from '@racebeacon/domain';
import * as checkpointsRepo from '../checkpoints/repository';
import type { Db } from '../db/client';
import { notFound } from '../lib/errors';
import type { RaceService } from '../races/service';
import type { AuthUser } from '../types';
import * as exportRepo from './export-repository';
import * as repo from './repository';

/** What the exports read from the live race (the LiveService; looked up when a file is asked for). */
export interface LiveResults {
  leaderboard(raceId: number, filter: Record<string, never>): Promise<LeaderboardRow[]>;
  /** Every runner's checkpoint passing times (GPS or check-in). */
  splits(
    raceId: number,
  ): Promise<{ RunnerId: number; Splits: { CheckpointId: number; PassingTime: string }[] }[]>;
}

export interface ExportFile {
  fileName: string;
  body: string;
}

/** `Trail des Cimes 2026` → `trail-des-cimes-2026` (ASCII, for a download's file name). */
export function fileSlug(name: string, fallback: string): string {
  const slug = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || fallback;
}

/** Files out of the race: the runner list (the import's format), the results, and a runner's track as GPX. */
export class RunnerExportService {
  constructor(
    private readonly db: Db,
    private readonly races: RaceService,
    private readonly live: () => LiveResults,
    private readonly now: () => number = Date.now,
  ) {}

  /** The race's runners as a CSV the import reads back (owner or admin). */
  async runnersCsv(user: AuthUser, raceId: number): Promise<ExportFile> {
    const race = await this.races.getManagedRace(user, raceId);
    const rows = await repo.listRunners(this.db, raceId);
    const body = runnersToCsv(
      rows.map((r) => ({
        BibNumber: r.bibNumber,
        FirstName: r.firstName,
        LastName: r.lastName,
        Gender: r.gender,
        Age: r.age,
        EmergencyContact: r.emergencyContact,
        Phone: r.phone,
      })),
    );
    return { fileName: `runners-${fileSlug(race.name, `race-${raceId}`)}.csv`, body };
  }

  /**
   * The results of a public race from its live leaderboard (its order, ranks and statuses, `dns`/`dnf`/`dsq` set by
   * people included), with a column per checkpoint when the race has them.
   */
  async resultsCsv(raceId: number): Promise<ExportFile> {
    const race = await this.races.getApprovedRace(raceId);
    const [rows, cps] = await Promise.all([
      this.live().leaderboard(raceId, {}),
      this.checkpointColumns(raceId),
    ]);
    const lines: ResultLine[] = rows.map((r) => ({
      Rank: r.Rank,
      BibNumber: r.BibNumber,
      FirstName: r.FirstName,
      LastName: r.LastName,
      Gender: r.Gender,
      Age: r.Age,
      Status: r.Status,
      FinishTime: r.FinishTime,
      ElapsedSeconds: r.ElapsedSeconds,
      DistanceKm: r.DistanceKm,
      Passes: cps?.passes.get(r.RunnerId),
    }));
    return {
      fileName: `results-${fileSlug(race.name, `race-${raceId}`)}.csv`,
      body: resultsToCsv(lines, cps?.names ?? []),
    };
  }

  /**
   * One column per checkpoint of the race (`Aid 1 (5.0 km)`, in course order) with each runner's passing time, from
   * the live splits; null when the race has no checkpoints.
   */
  private async checkpointColumns(raceId: number) {
    const checkpoints = await checkpointsRepo.listCheckpoints(this.db, raceId);
    if (checkpoints.length === 0) return null;
    const splits = await this.live().splits(raceId);
    const passes = new Map<number, (string | null)[]>();
    for (const r of splits) {
      const at = new Map(r.Splits.map((s) => [s.CheckpointId, s.PassingTime]));
      passes.set(
        r.RunnerId,
        checkpoints.map((c) => at.get(c.id) ?? null),
      );
    }
    return { names: checkpoints.map((c) => `${c.name} (${(c.distanceM / 1000).toFixed(1)} km)`), passes };
  }

  /**
   * A runner's recorded track of a public race as GPX 1.1, as the public sees it: not when the race's trails are
   * private or the runner hides their position (404), and without the fixes received within the public delay.
   */
  async trackGpx(raceId: number, runnerId: number): Promise<ExportFile> {
    const race = await this.races.getApprovedRace(raceId);
    const runner = await repo.findRunner(this.db, raceId, runnerId);
    // The public rules (packages/domain privacy.ts), as on the live map.
    const privacy = runner ? racePrivacy(race, [runner]) : null;
    if (!runner || !privacy || !trailIsPublic(privacy, runnerId)) {
      throw notFound(`Runner ${runnerId} has no public track in this race.`, 'track_not_found');
    }
    const visibleUntil = new Date(publicMoment(privacy, this.now()));
    const fixes = await exportRepo.listRunnerTrack(this.db, raceId, runnerId, visibleUntil);
    const who = `${runner.bibNumber ? `${runner.bibNumber} ` : ''}${runner.firstName} ${runner.lastName}`;
    const body = trackToGpx({
      name: `${race.name} – ${who}`,
      fixes: fixes.map((f) => ({ timeMs: f.t.getTime(), lat: f.lat, lon: f.lon, ele: f.ele })),
    });
    const fileName = `${fileSlug(race.name, `race-${raceId}`)}-${fileSlug(who, `runner-${runnerId}`)}.gpx`;
    return { fileName, body };
  }
}
