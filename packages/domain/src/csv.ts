/**
 * CSV reading and writing. Pure: a string in, plain data out.
 *
 * Reading accepts what spreadsheets and registration systems write: UTF-8 with or without a byte-order mark, a comma,
 * semicolon (European spreadsheets) or tab separator detected from the header line, quoted fields holding separators,
 * doubled quotes and line breaks, CRLF / LF / CR line ends; blank lines (and lines of separators only) are skipped.
 * Every record keeps the file line it starts on, so a message can name it.
 */

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvRecord {
  /** The file line (1-based) the record starts on. */
  line: number;
  fields: string[];
}

export interface ParsedCsv {
  delimiter: CsvDelimiter;
  /** Every non-blank record, the header first. */
  records: CsvRecord[];
}

/** A file that is not readable CSV; `line` is the file line (1-based) where the problem is. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`Line ${line}: ${message}`);
    this.name = 'CsvError';
  }
}

const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t'];

/** The separator the header line uses most (outside quotes): comma when there is none (a one-column file). */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = new Map<string, number>();
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (c === '\n' || c === '\r')) {
      // a header of blank lines: look at the first line that has something
      if ([...counts.values()].some((n) => n > 0) || text.slice(0, i).trim() !== '') break;
    } else if (!inQuotes && (DELIMITERS as readonly string[]).includes(c)) {
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  let best: CsvDelimiter = ',';
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parses CSV text into records. Throws CsvError for an unterminated quoted field (naming the line it opens on) and
 * for text after a closing quote (`"a"b`).
 */
export function parseCsv(input: string, opts: { delimiter?: CsvDelimiter } = {}): ParsedCsv {
  const text = stripBom(input);
  const delimiter = opts.delimiter ?? detectDelimiter(text);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quotedField = false;
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const n = text.length;

  const endRecord = () => {
    fields.push(field);
    const blank = !quotedField && fields.length === 1 && fields[0].trim() === '';
    const separatorsOnly = fields.every((f) => f.trim() === '');
    if (!blank && !separatorsOnly) records.push({ line: recordLine, fields });
    fields = [];
    field = '';
    quotedField = false;
  };

  while (i < n) {
    const c = text[i];
    if (c === '"' && field.trim() === '' && !quotedField) {
      // a quoted field (spaces before the opening quote are dropped)
      const openLine = line;
      field = '';
      quotedField = true;
      i++;
      for (;;) {
        if (i >= n) throw new CsvError(openLine, 'a quoted field is never closed (a " is missing)');
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\r' && text[i + 1] === '\n') {
          field += '\r\n';
          i += 2;
          line++;
          continue;
        }
        if (q === '\r' || q === '\n') line++;
        field += q;
        i++;
      }
      // only spaces may follow the closing quote before the separator or the line end
      while (i < n && text[i] === ' ') i++;
      if (i < n && text[i] !== delimiter && text[i] !== '\n' && text[i] !== '\r') {
        throw new CsvError(
          line,
          `unexpected text after a closing quote: ${JSON.stringify(text.slice(i, i + 10))}`,
        );
      }
      continue;
    }
    if (c === delimiter) {
      fields.push(field);
      field = '';
      quotedField = false;
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
      continue;
    }
    if (quotedField) {
      // characters after a quoted field were refused above; unreachable
      i++;
      continue;
    }
    field += c;
    i++;
  }
  if (field !== '' || fields.length > 0 || quotedField) endRecord();
  return { delimiter, records };
}

// ---------------------------------------------------------------- writing

export type CsvValue = string | number | boolean | null | undefined;

export interface CsvWriteOptions {
  /** Start with a UTF-8 byte-order mark, so that spreadsheets read the file as UTF-8. */
  bom?: boolean;
  delimiter?: CsvDelimiter;
  /**
   * Text starting with = + - @ (a formula to a spreadsheet) gets a leading apostrophe, so that a name like
   * `=HYPERLINK(…)` is shown, not run ("CSV injection"); phone numbers and plain numbers (`+33 6 12`, `-5`) are left
   * as they are. The runner import removes that apostrophe again.
   */
  guardFormulas?: boolean;
}

const FORMULA_START = /^[=+\-@\t\r]/;
/** `+33 6 12 34 56 78`, `-5`, `+1 (555) 010-9999`: a phone number or a plain number, safe in a spreadsheet. */
const PLAIN_NUMBER = /^[+-][\d\s()./-]*$/;
const looksLikeFormula = (s: string) => FORMULA_START.test(s) && !PLAIN_NUMBER.test(s);

/** One field as CSV: quoted when it holds the separator, a quote, a line break, or spaces at either end. */
export function csvField(value: CsvValue, opts: CsvWriteOptions = {}): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'string' ? value : String(value);
  if (opts.guardFormulas && typeof value === 'string' && looksLikeFormula(s)) s = `'${s}`;
  const delimiter = opts.delimiter ?? ',';
  const needsQuotes = s.includes(delimiter) || /["\r\n]/.test(s) || (s.length > 0 && s.trim() !== s);
  return needsQuotes ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows as CSV text: CRLF line ends (RFC 4180), the last line ended too. */
export function toCsv(rows: readonly (readonly CsvValue[])[], opts: CsvWriteOptions = {}): string {
  const delimiter = opts.delimiter ?? ',';
  const body = rows.map((row) => row.map((v) => csvField(v, opts)).join(delimiter)).join('\r\n');
  return `${opts.bom ? '\uFEFF' : ''}${body}${rows.length > 0 ? '\r\n' : ''}`;
}

/** Undoes `guardFormulas`: `'=x` read back is `=x`. */
export function unguardFormula(s: string): string {
  return s.length > 1 && s[0] === "'" && looksLikeFormula(s.slice(1)) ? s.slice(1) : s;
}
