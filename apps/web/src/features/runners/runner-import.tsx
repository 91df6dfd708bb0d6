import { useId, useRef, useState } from 'react';
import type { ApiFailure } from '../../lib/api-client';
import { failureMessage, FormError } from '../../components/form-error';
import { runnersApi, type RunnerImportResult } from './api';
import './runner-import.css';
import { useI18n } from '../../i18n';

type LineError = RunnerImportResult['Errors'][number];

/** What the dry run said: the plan, or the errors of a file refused as a whole. */
type Preview = { file: File; result: RunnerImportResult | null; errors: LineError[]; message: string | null };

const PREVIEW_ROWS = 200;
const ACTION_LABEL = { create: 'New', update: 'Update', unchanged: 'Unchanged' } as const;

/** The Errors of a 400 invalid_csv, when the server listed them. */
function lineErrorsOf(err: unknown): LineError[] | null {
  const errors = (err as ApiFailure | null)?.Errors;
  return Array.isArray(errors) ? (errors as LineError[]) : null;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * "Import runners (CSV)" on the director's race page: pick a file, see what the import would do (a dry run: new,
 * updated and unchanged runners, and every line with an error), then confirm. A file with errors imports nothing
 * unless "Skip the lines with errors" is ticked. Also the runners export (the same columns, to edit and import back).
 */
export function RunnerImport({ raceId, onImported }: { raceId: number; onImported(): Promise<void> }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [skipInvalid, setSkipInvalid] = useState(false);
  const [done, setDone] = useState<RunnerImportResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** The dry run always skips bad lines, so the preview shows both the plan and every error. */
  async function check(file: File) {
    setError(null);
    setDone(null);
    try {
      const result = await runnersApi.importCsv(raceId, file, { dryRun: true, skipInvalid: true });
      setPreview({ file, result, errors: result.Errors, message: null });
    } catch (err) {
      const errors = lineErrorsOf(err);
      if (!errors) {
        setPreview(null);
        setError(failureMessage(err));
        return;
      }
      setPreview({ file, result: null, errors, message: failureMessage(err) });
    }
  }

  async function confirm() {
    if (!preview?.result) return;
    setError(null);
    try {
      const result = await runnersApi.importCsv(raceId, preview.file, { dryRun: false, skipInvalid });
      setDone(result);
      setPreview(null);
      if (input.current) input.current.value = '';
      await onImported();
    } catch (err) {
      setError(failureMessage(err));
    }
  }

  async function exportRunners() {
    setError(null);
    try {
      const { blob, fileName } = await runnersApi.exportCsv(raceId);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName ?? `runners-${raceId}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(failureMessage(err));
    }
  }

  const result = preview?.result ?? null;
  const toImport = result ? result.Created + result.Updated : 0;
  const blocked = !result || toImport === 0 || (preview!.errors.length > 0 && !skipInvalid);

  return (
    <details className="runner-import" data-testid="runner-import">
      <summary>Import runners (CSV)</summary>
      <div className="runner-import-body">
        <p className="muted">
          One runner per line, with a header line: <code>BibNumber</code>, <code>FirstName</code>,{' '}
          <code>LastName</code>, and optionally <code>Gender</code> (M/F), <code>Age</code>,{' '}
          <code>EmergencyContact</code>, <code>Phone</code>. Common spellings work too (bib, first name,
          sex…); commas or semicolons, UTF-8. A bib already in the race updates that runner.
        </p>
        <div className="runner-import-actions">
          <label htmlFor={`${id}-file`} className="runner-import-file">
            CSV file
            <input
              ref={input}
              id={`${id}-file`}
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => {
                const file = e.target.files?.[0];
                // Cleared, so that picking the same file again (after fixing it) is a change too.
                e.target.value = '';
                if (file) void check(file);
              }}
            />
          </label>
          <button type="button" className="btn btn-secondary btn-small" onClick={() => void exportRunners()}>
            Export runners (CSV)
          </button>
        </div>
        <FormError message={error} />
        {done && (
          <p className="notice" role="status" data-testid="import-summary">
            Imported: {plural(done.Created, 'new runner')}, {plural(done.Updated, 'runner')} updated,{' '}
            {done.Unchanged} unchanged
            {done.Errors.length > 0 && `, ${plural(done.Errors.length, 'line')} skipped`}.
          </p>
        )}
        {preview && (
          <div className="runner-import-preview" data-testid="import-preview">
            <h3>Preview of {preview.file.name}</h3>
            {result && (
              <p data-testid="import-plan">
                {plural(result.Created, 'new runner')}, {plural(result.Updated, 'runner')} to update,{' '}
                {result.Unchanged} unchanged.
              </p>
            )}
            {preview.errors.length > 0 && (
              <div className="runner-import-errors" role="alert" data-testid="import-errors">
                <p>
                  {result && skipInvalid
                    ? `${plural(preview.errors.length, 'line')} with errors will be skipped:`
                    : `Nothing will be imported while ${plural(preview.errors.length, 'line has', 'lines have')} errors. Fix the file and pick it again${result ? ', or skip them' : ''}:`}
                </p>
                <ul>
                  {preview.errors.map((e) => (
                    <li key={`${e.Line}-${e.Message}`} data-testid="import-error">
                      <strong>Line {e.Line}:</strong> {e.Message}
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {result && preview.errors.length > 0 && (
              <label className="runner-import-skip">
                <input
                  type="checkbox"
                  checked={skipInvalid}
                  onChange={(e) => setSkipInvalid(e.target.checked)}
                />{' '}
                Skip the lines with errors and import the others
              </label>
            )}
            {result && result.Rows.length > 0 && (
              <div className="runner-import-table-wrap">
                <table className="table runner-import-table" aria-label="Runners in the file">
                  <thead>
                    <tr>
                      <th scope="col">Line</th>
                      <th scope="col">Bib</th>
                      <th scope="col">Name</th>
                      <th scope="col">Import</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.Rows.slice(0, PREVIEW_ROWS).map((r) => (
                      <tr key={r.Line} data-testid="import-row">
                        <td>{r.Line}</td>
                        <td className="bib">{r.BibNumber}</td>
                        <td>
                          {r.FirstName} {r.LastName}
                        </td>
                        <td>{ACTION_LABEL[r.Action]}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {result.Rows.length > PREVIEW_ROWS && (
                  <p className="muted">…and {result.Rows.length - PREVIEW_ROWS} more.</p>
                )}
              </div>
            )}
            <div className="runner-import-actions">
              <button
                type="button"
                className="btn btn-primary btn-small"
                disabled={blocked}
                onClick={() => void confirm()}
              >
                {result && toImport === 0 ? 'Nothing to import' : `Import ${plural(toImport, 'runner')}`}
              </button>
              <button
                type="button"
                className="btn btn-secondary btn-small"
                onClick={() => {
                  setPreview(null);
                  if (input.current) input.current.value = '';
                }}
              >
                Cancel
              </button>
            </div>
          </div>
        )}
      </div>
    </details>
  );
}

/** The public results file of an approved race (rank, times, checkpoints), for spreadsheets and timing software. */
export function ResultsCsvLink({ raceId }: { raceId: number }) {
  const { t } = useI18n();
  return (
    <p className="results-csv-link">
      <a href={runnersApi.resultsCsvUrl(raceId)} download className="btn btn-secondary btn-small">
        {t('runners.resultsCsv')}
      </a>
    </p>
  );
}
