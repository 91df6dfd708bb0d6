/**
 * npm run simulate -- --race <id> [--speed N] [--url http://localhost:3000] [--token <admin access token>]
 *
 * Moves the race's runners along its course, sending real OsmAnd requests with each assigned device's tracking
 * key. It needs the course and the keys:
 *  - with DATABASE_URL set (PostgreSQL), both are read from the database;
 *  - otherwise from the server's API: the course from /api/open/course/{id}/course.geojson and the keys from
 *    /api/admin/devices, which needs an administrator's access token (--token or RACEBEACON_TOKEN).
 *    (The embedded database cannot be opened while the server holds it.)
 */
import { parseArgs } from 'node:util';
import { RaceSimulator, type SimRunner } from './simulator';
import type { CoursePoint } from '@racebeacon/domain';

interface Loaded {
  course: CoursePoint[];
  runners: SimRunner[];
  raceStart: Date;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function fromDatabase(url: string, raceId: number): Promise<Loaded> {
  const { openDatabase } = await import('../db/client');
  const { findRaceForSimulation } = await import('./race-data');
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    return await findRaceForSimulation(database.db, raceId);
  } finally {
    await database.close();
  }
}

async function fromApi(base: string, raceId: number, token: string | undefined): Promise<Loaded> {
  if (!token)
    fail(
      'Without DATABASE_URL the simulator reads tracking keys from /api/admin/devices: pass --token <admin access token> or set RACEBEACON_TOKEN.',
    );
  const get = async (path: string, auth: boolean) => {
    const res = await fetch(`${base}${path}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
    if (!res.ok) fail(`GET ${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<unknown>;
  };
  const race = (await get(`/api/open/races/${raceId}`, false)) as {
    StartTime?: string | null;
    ClockStartedAt?: string | null;
  };
  const geo = (await get(`/api/open/course/${raceId}/course.geojson`, false)) as {
    features?: { geometry?: { type?: string; coordinates?: number[][] } }[];
    geometry?: { type?: string; coordinates?: number[][] };
  };
  const line = (geo.features ?? [geo]).find((f) => f.geometry?.type === 'LineString')?.geometry?.coordinates;
  if (!line?.length) fail('The race has no course.');
  const devices = (await get('/api/admin/devices', true)) as {
    RaceId: number | null;
    AssignedRunnerId: number | null;
    TrackingKey: string;
    RunnerName?: string | null;
    Source?: string;
  }[];
  const runners = devices
    .filter((d) => d.RaceId === raceId && d.AssignedRunnerId !== null && (d.Source ?? 'osmand') === 'osmand')
    .map((d) => ({ trackingKey: d.TrackingKey, label: d.RunnerName ?? `runner ${d.AssignedRunnerId}` }));
  return {
    course: line.map((c) => [c[0], c[1], c[2] ?? null] as CoursePoint),
    runners,
    raceStart: new Date(race.ClockStartedAt ?? race.StartTime ?? Date.now()),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      race: { type: 'string' },
      speed: { type: 'string', default: '1' },
      url: { type: 'string', default: 'http://localhost:3000' },
      token: { type: 'string' },
    },
  });
  const raceId = Number(values.race);
  const speed = Number(values.speed);
  if (!Number.isInteger(raceId) || raceId <= 0)
    fail('Usage: npm run simulate -- --race <id> [--speed N] [--url URL]');
  if (!Number.isFinite(speed) || speed <= 0) fail('--speed must be a positive number');
  const base = values.url!.replace(/\/+$/, '');
  const loaded = process.env.DATABASE_URL
    ? await fromDatabase(process.env.DATABASE_URL, raceId)
    : await fromApi(base, raceId, values.token ?? process.env.RACEBEACON_TOKEN);
  if (!loaded.runners.length) fail('No runner of this race has an OsmAnd device assigned.');
  // A race not started yet is simulated as starting now.
  const raceStart = loaded.raceStart.getTime() > Date.now() ? new Date() : loaded.raceStart;
  const sim = new RaceSimulator({
    baseUrl: base,
    course: loaded.course,
    runners: loaded.runners,
    raceStart,
    speed,
  });
  console.log(
    `Simulating ${loaded.runners.length} runners of race ${raceId} at ${speed}x against ${base} (Ctrl-C stops).`,
  );
  sim.start();
  const report = setInterval(
    () => console.log(`sent ${sim.sent} fixes, ${sim.failed} failed, ${sim.finishedCount} finished`),
    30_000,
  );
  const stop = async () => {
    clearInterval(report);
    await sim.stop();
    console.log(`stopped: sent ${sim.sent} fixes`);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

void main();
