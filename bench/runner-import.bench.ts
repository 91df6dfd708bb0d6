/**
 * Runner CSV import (`npm run bench -- runner-import`): a 5,000-line CSV (semicolons, a BOM, quoted values) imported
 * into an empty race through the real import service, in one transaction, on an embedded PGlite database — beside,
 * in the same run, reading the same file alone (parse + check every row, no database) and adding the same runners one
 * by one through the runner service (what a director's script calling POST /api/director/runners would cost, minus
 * HTTP; 500 measured, scaled). Then the same file again (every row Unchanged: read, match by bib, write nothing), and
 * with every age changed (5,000 updates in one statement). Goal: < 2 s.
 */
import { performance } from 'node:perf_hooks';
import { readRunnerCsv, toCsv } from '@racebeacon/domain';
import { openDatabase } from '../apps/server/src/db/client';
import { races } from '../apps/server/src/db/schema';
import { noRaceEvents } from '../apps/server/src/lib/race-events';
import { RaceService } from '../apps/server/src/races/service';
import { RunnerImportService } from '../apps/server/src/runners/import-service';
import { RunnerService } from '../apps/server/src/runners/service';

const ROWS = 5000;
const ONE_BY_ONE = 500;
const user = { id: 'bench-director', isAdmin: false, scopes: [] };

function csvOf(n: number, ageShift = 0): string {
  const rows: (string | number)[][] = [
    ['Bib', 'First name', 'Last name', 'Sex', 'Age', 'Emergency contact', 'Phone'],
  ];
  for (let i = 1; i <= n; i++) {
    rows.push([
      String(i),
      `Prénom${i}`,
      i % 10 === 0 ? `Du "Pont"; ${i}` : `Nom${i}`,
      i % 2 ? 'male' : 'F',
      20 + ((i + ageShift) % 50),
      `Contact ${i}, +33 6 00 00 ${String(i).padStart(4, '0')}`,
      `+33 6 11 ${String(i).padStart(6, '0')}`,
    ]);
  }
  return toCsv(rows, { bom: true, delimiter: ';' });
}

const ms = (t0: number) => performance.now() - t0;
const fmt = (x: number) => `${x.toFixed(0).padStart(6)} ms`;

export default async function runnerImportBench(): Promise<void> {
  const csv = csvOf(ROWS);
  console.log(`CSV: ${ROWS} runners, ${(Buffer.byteLength(csv) / 1024).toFixed(0)} KB, PGlite (embedded)`);

  // Reading alone (no database): the floor any import pays (second run: the first warms the JIT up).
  readRunnerCsv(csv);
  let t0 = performance.now();
  const read = readRunnerCsv(csv);
  const readMs = ms(t0);
  if (read.errors.length || read.rows.length !== ROWS)
    throw new Error(`bench CSV did not read: ${read.errors[0]?.Message}`);

  const database = await openDatabase({});
  try {
    const db = database.db;
    const racesSvc = new RaceService(db, noRaceEvents);
    const newRace = async (name: string) =>
      (await db.insert(races).values({ name, directorId: user.id }).returning({ id: races.id }))[0].id;
    const imports = new RunnerImportService(db, noRaceEvents, racesSvc);
    const runnersSvc = new RunnerService(db, noRaceEvents, racesSvc);

    // Warm-up (JIT, PGlite's first statements) on a small file.
    await imports.importCsv(user, await newRace('warm-up'), csvOf(50));

    const raceA = await newRace('import');
    t0 = performance.now();
    const created = await imports.importCsv(user, raceA, csv);
    const importMs = ms(t0);
    if (created.Created !== ROWS) throw new Error(`expected ${ROWS} created, got ${created.Created}`);

    t0 = performance.now();
    const again = await imports.importCsv(user, raceA, csv);
    const againMs = ms(t0);
    if (again.Unchanged !== ROWS) throw new Error(`expected ${ROWS} unchanged, got ${again.Unchanged}`);

    t0 = performance.now();
    const changed = await imports.importCsv(user, raceA, csvOf(ROWS, 1));
    const updateMs = ms(t0);
    if (changed.Updated !== ROWS) throw new Error(`expected ${ROWS} updated, got ${changed.Updated}`);

    t0 = performance.now();
    const dry = await imports.importCsv(user, await newRace('dry run'), csv, { dryRun: true });
    const dryMs = ms(t0);
    if (dry.Created !== ROWS) throw new Error('dry run');

    // One by one is slow: measured on the first ONE_BY_ONE rows, scaled to the file.
    const raceB = await newRace('one by one');
    t0 = performance.now();
    for (const row of read.rows.slice(0, ONE_BY_ONE))
      await runnersSvc.createRunner(user.id, raceB, row.Runner);
    const oneByOneMs = (ms(t0) * ROWS) / ONE_BY_ONE;

    console.log(`read + check only (baseline)       ${fmt(readMs)}`);
    console.log(
      `import, all new (one transaction)  ${fmt(importMs)}   goal < 2000 ms: ${importMs < 2000 ? 'met' : 'MISSED'}`,
    );
    console.log(`import again, all Unchanged        ${fmt(againMs)}`);
    console.log(`import again, all Updated          ${fmt(updateMs)}`);
    console.log(`dry run into an empty race         ${fmt(dryMs)}`);
    console.log(
      `one by one, scaled (baseline)      ${fmt(oneByOneMs)}   ×${(oneByOneMs / importMs).toFixed(1)} the import (${ONE_BY_ONE} measured)`,
    );
  } finally {
    await database.close();
  }
}
