import {
  planRunnerImport,
  readRunnerCsv,
  type ExistingRunner,
  type RunnerCsvError,
  type RunnerImportAction,
} from '@racebeacon/domain';
import type { Db, DbOrTx } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import { badRequest, conflict, HttpError } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import type { RaceService } from '../races/service';
import type { AuthUser } from '../types';
import * as repo from './repository';
import { toFields } from './service';

/** The most data rows one import takes (a registration export of a large race is a few thousand). */
export const MAX_IMPORT_ROWS = 20_000;
/** Rows per statement (each column is one array parameter; chunks keep a statement's size bounded). */
const CHUNK = 5000;

export interface ImportOptions {
  /** Answer what would happen, write nothing. */
  dryRun?: boolean;
  /** Import the valid rows and list the others in Errors (otherwise any error writes nothing). */
  skipInvalid?: boolean;
}

export interface ImportResult {
  Created: number;
  Updated: number;
  Unchanged: number;
  Errors: RunnerCsvError[];
  DryRun: boolean;
  /** One line per row imported (or to be imported on a dry run): what happens to it. */
  Rows: {
    Line: number;
    Action: 'create' | 'update' | 'unchanged';
    BibNumber: string;
    FirstName: string;
    LastName: string;
  }[];
}

/** A file with errors (and no skipInvalid): 400 naming the first line, with every error listed. */
export class ImportRefused extends HttpError {
  constructor(readonly errors: RunnerCsvError[]) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    super(400, 'invalid_csv', `Line ${first.Line}: ${first.Message}${more} Nothing was imported.`);
  }
}

const existingOf = (r: Awaited<ReturnType<typeof repo.listRunnersToMatch>>[number]): ExistingRunner => ({
  RunnerId: r.id,
  BibNumber: r.bibNumber,
  FirstName: r.firstName,
  LastName: r.lastName,
  Gender: r.gender,
  Age: r.age,
  EmergencyContact: r.emergencyContact,
  Phone: r.phone,
});

/**
 * Runners from a CSV file: read and checked by the domain (`readRunnerCsv`: the runner body schema, a bib per row,
 * no bib twice), matched by bib to the race's runners (`planRunnerImport`), written in one transaction. The race is
 * the caller's (or any race for an admin), as for every runner change; bibs stay unique per race because a bib
 * already there updates its runner instead of adding one (and the unique index stands behind it).
 */
export class RunnerImportService {
  constructor(
    private readonly db: Db,
    private readonly events: RaceEvents,
    private readonly races: RaceService,
  ) {}

  async importCsv(
    user: AuthUser,
    raceId: number,
    text: string,
    opts: ImportOptions = {},
  ): Promise<ImportResult> {
    await this.races.getManagedRace(user, raceId);
    const { rows, errors } = readRunnerCsv(text);
    if (rows.length > MAX_IMPORT_ROWS) {
      throw badRequest(
        `The file has ${rows.length} runners; one import takes at most ${MAX_IMPORT_ROWS}.`,
        'too_many_rows',
      );
    }
    // A file nothing can be read from (bad header, unterminated quote) is refused even with skipInvalid.
    if (errors.length > 0 && (!opts.skipInvalid || rows.length === 0)) throw new ImportRefused(errors);

    const dryRun = opts.dryRun ?? false;
    const plan = async (tx: DbOrTx) =>
      planRunnerImport((await repo.listRunnersToMatch(tx, raceId)).map(existingOf), rows);
    let actions: RunnerImportAction[];
    if (dryRun) {
      actions = await plan(this.db);
    } else {
      try {
        actions = await this.db.transaction(async (tx) => {
          const planned = await plan(tx);
          await this.apply(tx, raceId, planned);
          return planned;
        });
      } catch (err) {
        // Another request added one of these bibs meanwhile.
        if (isUniqueViolation(err)) {
          throw conflict(
            'A bib of this file was just added to the race by someone else; import again.',
            'duplicate_bib',
          );
        }
        throw err;
      }
    }
    const count = (kind: RunnerImportAction['Kind']) => actions.filter((a) => a.Kind === kind).length;
    const result: ImportResult = {
      Created: count('create'),
      Updated: count('update'),
      Unchanged: count('unchanged'),
      Errors: errors,
      DryRun: dryRun,
      Rows: actions.map((a, i) => ({
        Line: a.Line,
        Action: a.Kind,
        BibNumber: rows[i].Runner.BibNumber,
        FirstName: rows[i].Runner.FirstName,
        LastName: rows[i].Runner.LastName,
      })),
    };
    if (!dryRun && result.Created + result.Updated > 0) await this.events.raceChanged(raceId);
    return result;
  }

  private async apply(tx: DbOrTx, raceId: number, actions: RunnerImportAction[]): Promise<void> {
    const creates = actions.flatMap((a) => (a.Kind === 'create' ? [toFields(a.Runner)] : []));
    const updates = actions.flatMap((a) =>
      a.Kind === 'update' ? [{ id: a.RunnerId, values: toFields(a.Runner) }] : [],
    );
    for (let i = 0; i < creates.length; i += CHUNK)
      await repo.insertRunners(tx, raceId, creates.slice(i, i + CHUNK));
    for (let i = 0; i < updates.length; i += CHUNK)
      await repo.updateRunners(tx, raceId, updates.slice(i, i + CHUNK));
  }
}
