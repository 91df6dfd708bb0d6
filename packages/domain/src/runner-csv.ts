import { CsvError, parseCsv, toCsv, unguardFormula, type CsvDelimiter, type CsvValue } from './csv';
import { directorRunnerBodySchema, validationMessage, type DirectorRunnerInput } from './schemas';

/**
 * Runners from a CSV file (a registration system's export, a spreadsheet) and back. Columns are found by their header,
 * whatever the case, spaces, underscores or accents, under the usual spellings; each row is checked with the same
 * schema as the director's "add runner" body, plus the one rule of an import: every row has a bib (the bib is how a
 * row finds the runner it updates), and a bib appears once in the file.
 */

export const RUNNER_CSV_FIELDS = [
  'BibNumber',
  'FirstName',
  'LastName',
  'Gender',
  'Age',
  'EmergencyContact',
  'Phone',
] as const;
export type RunnerCsvField = (typeof RUNNER_CSV_FIELDS)[number];

/** Header spellings per field, compared after `normalizeHeader`. */
export const RUNNER_CSV_HEADERS: Record<RunnerCsvField, readonly string[]> = {
  BibNumber: [
    'bibnumber',
    'bib',
    'bibno',
    'bibnr',
    'dossard',
    'startnumber',
    'startnr',
    'racenumber',
    'number',
  ],
  FirstName: ['firstname', 'first', 'givenname', 'forename', 'prenom', 'vorname', 'nombre'],
  LastName: ['lastname', 'last', 'surname', 'familyname', 'nom', 'nachname', 'apellido', 'apellidos'],
  Gender: ['gender', 'sex', 'sexe', 'geschlecht', 'genre'],
  Age: ['age', 'alter', 'edad'],
  EmergencyContact: ['emergencycontact', 'emergency', 'ice', 'incaseofemergency', 'emergencyphone'],
  Phone: ['phone', 'phonenumber', 'mobile', 'mobilephone', 'cellphone', 'cell', 'tel', 'telephone'],
};

/** Columns an import cannot do without. */
export const REQUIRED_RUNNER_CSV_FIELDS: readonly RunnerCsvField[] = ['BibNumber', 'FirstName', 'LastName'];

/** `First_Name`, `first name`, `Prénom`, `BIB #` → `firstname`, `firstname`, `prenom`, `bib`. */
export function normalizeHeader(h: string): string {
  return h
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

const GENDER_WORDS: Record<string, 'M' | 'F'> = {
  m: 'M',
  male: 'M',
  man: 'M',
  men: 'M',
  h: 'M',
  homme: 'M',
  masculin: 'M',
  mannlich: 'M',
  herr: 'M',
  f: 'F',
  female: 'F',
  woman: 'F',
  women: 'F',
  w: 'F',
  femme: 'F',
  feminin: 'F',
  weiblich: 'F',
  frau: 'F',
  dame: 'F',
};

/** M/F from the usual words (any case, accents ignored); undefined for an empty cell, null for a word it does not know. */
export function parseGender(value: string): 'M' | 'F' | null | undefined {
  const v = normalizeHeader(value);
  if (v === '') return undefined;
  return GENDER_WORDS[v] ?? null;
}

export interface RunnerCsvError {
  /** The file line (1-based; the header is line 1 when the file starts with it). */
  Line: number;
  Message: string;
}

export interface RunnerCsvRow {
  Line: number;
  Runner: DirectorRunnerInput & { BibNumber: string };
  /**
   * Fields the row does not give (no such column, or an empty Gender cell): a new runner gets the schema's default
   * (Gender M, Age null), an update keeps the stored value.
   */
  Keep: ('Gender' | 'Age')[];
}

export interface RunnerCsvResult {
  rows: RunnerCsvRow[];
  errors: RunnerCsvError[];
  /** Which column each field was read from (the header's own spelling). */
  columns: Partial<Record<RunnerCsvField, string>>;
  /** Header cells that match no field (ignored). */
  ignored: string[];
  delimiter: CsvDelimiter | null;
}

/** Where the header's columns go: field → column index, or errors naming the header line. */
function mapHeader(header: string[], line: number) {
  const index: Partial<Record<RunnerCsvField, number>> = {};
  const ignored: string[] = [];
  const errors: RunnerCsvError[] = [];
  header.forEach((cell, i) => {
    const key = normalizeHeader(cell);
    const field = RUNNER_CSV_FIELDS.find((f) => RUNNER_CSV_HEADERS[f].includes(key));
    if (!field) {
      if (cell.trim() !== '') ignored.push(cell.trim());
      return;
    }
    if (index[field] !== undefined) {
      errors.push({
        Line: line,
        Message: `Columns "${header[index[field]].trim()}" and "${cell.trim()}" both look like ${field}; keep one.`,
      });
      return;
    }
    index[field] = i;
  });
  for (const f of REQUIRED_RUNNER_CSV_FIELDS) {
    if (index[f] === undefined) {
      errors.push({
        Line: line,
        Message: `No ${f} column (a header such as ${RUNNER_CSV_HEADERS[f]
          .slice(0, 3)
          .map((h) => `"${h}"`)
          .join(', ')}).`,
      });
    }
  }
  return { index, ignored, errors };
}

/** One data row → the body the runner schema reads, or an error message. */
function readRow(
  fields: string[],
  index: Partial<Record<RunnerCsvField, number>>,
): { body: Record<string, unknown> } | { message: string } {
  const cell = (f: RunnerCsvField): string | undefined => {
    const i = index[f];
    if (i === undefined) return undefined;
    return unguardFormula((fields[i] ?? '').trim());
  };
  const body: Record<string, unknown> = {};
  for (const f of ['BibNumber', 'FirstName', 'LastName', 'EmergencyContact', 'Phone'] as const) {
    const v = cell(f);
    if (v !== undefined) body[f] = v;
  }
  const gender = cell('Gender');
  if (gender !== undefined) {
    const g = parseGender(gender);
    if (g === null) return { message: `Gender: "${gender}" is not M or F (male, female, …).` };
    if (g !== undefined) body.Gender = g;
  }
  const age = cell('Age');
  if (age !== undefined && age !== '') {
    if (!/^\d+$/.test(age)) return { message: `Age: "${age}" is not a whole number.` };
    body.Age = Number(age);
  }
  if (!body.BibNumber)
    return { message: 'BibNumber: is required (it is how an import finds the runner to update).' };
  return { body };
}

/**
 * Reads a runner CSV: every valid row with its file line, and every problem as `{ Line, Message }` (sorted by line).
 * A file that is not readable CSV (an unterminated quote) gives that one error; a header without the required
 * columns gives its errors and no rows. A bib seen again later in the file is an error on the later line.
 */
export function readRunnerCsv(text: string): RunnerCsvResult {
  let parsed;
  try {
    parsed = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const message = err.message.replace(/^Line \d+: /, '');
    return {
      rows: [],
      errors: [{ Line: err.line, Message: message.charAt(0).toUpperCase() + message.slice(1) }],
      columns: {},
      ignored: [],
      delimiter: null,
    };
  }
  const [header, ...data] = parsed.records;
  if (!header) {
    return {
      rows: [],
      errors: [{ Line: 1, Message: 'The file is empty.' }],
      columns: {},
      ignored: [],
      delimiter: parsed.delimiter,
    };
  }
  const { index, ignored, errors } = mapHeader(header.fields, header.line);
  const columns: RunnerCsvResult['columns'] = {};
  for (const f of RUNNER_CSV_FIELDS) if (index[f] !== undefined) columns[f] = header.fields[index[f]].trim();
  if (errors.length > 0) return { rows: [], errors, columns, ignored, delimiter: parsed.delimiter };
  if (data.length === 0) {
    errors.push({ Line: header.line, Message: 'The file has a header but no runners.' });
  }

  const rows: RunnerCsvRow[] = [];
  const bibLines = new Map<string, number>();
  for (const record of data) {
    const extra = record.fields.slice(header.fields.length).filter((f) => f.trim() !== '');
    if (extra.length > 0) {
      errors.push({
        Line: record.line,
        Message: `${record.fields.length} fields, the header has ${header.fields.length} (a separator inside a value that is not quoted?).`,
      });
      continue;
    }
    const read = readRow(record.fields, index);
    if ('message' in read) {
      errors.push({ Line: record.line, Message: read.message });
      continue;
    }
    const parsedRow = directorRunnerBodySchema.safeParse(read.body);
    if (!parsedRow.success) {
      errors.push({ Line: record.line, Message: validationMessage(parsedRow.error.issues) });
      continue;
    }
    const bib = parsedRow.data.BibNumber!;
    const first = bibLines.get(bib);
    if (first !== undefined) {
      errors.push({ Line: record.line, Message: `BibNumber ${bib} is already on line ${first}.` });
      continue;
    }
    bibLines.set(bib, record.line);
    const keep: RunnerCsvRow['Keep'] = [];
    if (read.body.Gender === undefined) keep.push('Gender');
    if (index.Age === undefined) keep.push('Age');
    rows.push({ Line: record.line, Runner: { ...parsedRow.data, BibNumber: bib }, Keep: keep });
  }
  errors.sort((a, b) => a.Line - b.Line);
  return { rows, errors, columns, ignored, delimiter: parsed.delimiter };
}

// ---------------------------------------------------------------- the import plan

/** A runner as stored, the fields an import compares. */
export interface ExistingRunner {
  RunnerId: number;
  BibNumber: string | null;
  FirstName: string;
  LastName: string;
  Gender: string;
  Age: number | null;
  EmergencyContact: string | null;
  Phone: string | null;
}

export type RunnerImportAction =
  | { Kind: 'create'; Line: number; Runner: RunnerCsvRow['Runner'] }
  | { Kind: 'update'; Line: number; RunnerId: number; Runner: RunnerCsvRow['Runner'] }
  | { Kind: 'unchanged'; Line: number; RunnerId: number };

/**
 * What importing the rows does to the race's runners: a bib already in the race updates that runner (unchanged when
 * every field the file gives is equal; a column the file lacks keeps the stored value), a new bib creates one.
 */
export function planRunnerImport(
  existing: readonly ExistingRunner[],
  rows: readonly RunnerCsvRow[],
): RunnerImportAction[] {
  const byBib = new Map<string, ExistingRunner>();
  for (const r of existing) if (r.BibNumber !== null) byBib.set(r.BibNumber, r);
  return rows.map(({ Line, Runner: given, Keep }) => {
    const current = byBib.get(given.BibNumber);
    if (!current) return { Kind: 'create', Line, Runner: given };
    const Runner = {
      ...given,
      Gender: Keep.includes('Gender') ? (current.Gender as typeof given.Gender) : given.Gender,
      Age: Keep.includes('Age') ? current.Age : given.Age,
    };
    const same =
      current.FirstName === Runner.FirstName &&
      current.LastName === Runner.LastName &&
      current.Gender === Runner.Gender &&
      current.Age === Runner.Age &&
      (Runner.EmergencyContact === undefined || current.EmergencyContact === Runner.EmergencyContact) &&
      (Runner.Phone === undefined || current.Phone === Runner.Phone);
    return same
      ? { Kind: 'unchanged', Line, RunnerId: current.RunnerId }
      : { Kind: 'update', Line, RunnerId: current.RunnerId, Runner };
  });
}

/** The export's header, in the import's own spelling, so an exported file imports back unchanged. */
export const RUNNER_EXPORT_HEADER = RUNNER_CSV_FIELDS;

/** Runners as CSV (UTF-8 BOM, CRLF), readable again by `readRunnerCsv`. */
export function runnersToCsv(runners: readonly Omit<ExistingRunner, 'RunnerId'>[]): string {
  const rows: CsvValue[][] = [[...RUNNER_EXPORT_HEADER]];
  for (const r of runners) {
    rows.push([r.BibNumber, r.FirstName, r.LastName, r.Gender, r.Age, r.EmergencyContact, r.Phone]);
  }
  return toCsv(rows, { bom: true, guardFormulas: true });
}

// ---------------------------------------------------------------- results

/** One runner's line of the results file (the live leaderboard's fields, plus the checkpoint passing times). */
export interface ResultLine {
  Rank: number | null;
  BibNumber: string | null;
  FirstName: string;
  LastName: string;
  Gender: string;
  Age: number | null;
  /** The leaderboard's status, or the one a person set (DNS, DNF, DSQ). */
  Status: string;
  /** ISO date-time, or null. */
  FinishTime: string | null;
  ElapsedSeconds: number | null;
  DistanceKm: number | null;
  /** Passing time (ISO) per checkpoint of `checkpoints`, in the same order; null where not passed. */
  Passes?: readonly (string | null)[];
}

/** 93784 s → `26:03:04` (hours keep counting past a day). */
export function formatElapsed(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '';
  const s = Math.round(seconds);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = s % 60;
  return `${hh}:${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
}

/** An ISO time as a spreadsheet reads it: whole seconds, offset kept (`2026-06-06T12:34:56Z`). */
export function formatIsoSeconds(iso: string | null): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
}

/**
 * The results file: Rank, BibNumber, FirstName, LastName, Gender, Age, Status, FinishTime, Elapsed (h:mm:ss),
 * DistanceKm, then one column per checkpoint (its passing time). UTF-8 BOM and CRLF, so spreadsheets open it as it is.
 */
export function resultsToCsv(lines: readonly ResultLine[], checkpoints: readonly string[] = []): string {
  const header = [
    'Rank',
    'BibNumber',
    'FirstName',
    'LastName',
    'Gender',
    'Age',
    'Status',
    'FinishTime',
    'Elapsed',
    'DistanceKm',
    ...checkpoints,
  ];
  const rows: CsvValue[][] = [header];
  for (const l of lines) {
    rows.push([
      l.Rank,
      l.BibNumber,
      l.FirstName,
      l.LastName,
      l.Gender,
      l.Age,
      l.Status,
      formatIsoSeconds(l.FinishTime),
      formatElapsed(l.ElapsedSeconds),
      l.DistanceKm === null ? null : Number(l.DistanceKm.toFixed(2)),
      ...checkpoints.map((_, i) => formatIsoSeconds(l.Passes?.[i] ?? null)),
    ]);
  }
  return toCsv(rows, { bom: true, guardFormulas: true });
}
