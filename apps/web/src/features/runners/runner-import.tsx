import { useId, useRef, useState } from 'react';
import type { ApiFailure } from '../../lib/api-client';
import { failureMessage, FormError } from '../../components/form-error';
import { runnersApi, type RunnerImportResult } from './api';
import './runner-import.css';
import { t, useI18n } from '../../i18n';
import { RichText } from '../../i18n/rich-text';

type LineError = RunnerImportResult['Errors'][number];

/** What the dry run said: the plan, or the errors of a file refused as a whole. */
type Preview = { file: File; result: RunnerImportResult | null; errors: LineError[]; message: string | null };

const PREVIEW_ROWS = 200;
const ACTION_LABEL = {
  create: 'runnerImport.actionNew',
  update: 'runnerImport.actionUpdate',
  unchanged: 'runnerImport.actionUnchanged',
} as const;

/** The Errors of a 400 invalid_csv, when the server listed them. */
function lineErrorsOf(err: unknown): LineError[] | null {
  const errors = (err as ApiFailure | null)?.Errors;
  return Array.isArray(errors) ? (errors as LineError[]) : null;
}

/** "1 new runner" / "3 new runners", "1 line" / "2 lines", "1 runner" / "4 runners", in the viewer's language. */
const newRunners = (count: number) =>
  t(count === 1 ? 'runnerImport.newRunner' : 'runnerImport.newRunners', { count });
const runnersCount = (count: number) =>
  t(count === 1 ? 'runnerImport.runner' : 'runnerImport.runners', { count });
const linesCount = (count: number) => t(count === 1 ? 'runnerImport.line' : 'runnerImport.lines', { count });

/**
 * "Import runners (CSV)" on the director's race page: pick a file, see what the import would do (a dry run: new,
 * updated and unchanged runners, and every line with an error), then confirm. A file with errors imports nothing
 * unless "Skip the lines with errors" is ticked. Also the runners export (the same columns, to edit and import back).
 */
export function RunnerImport({ raceId, onImported }: { raceId: number; onImported(): Promise<void> }) {
  const id = useId();
  useI18n();
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
      <summary>{t('runnerImport.summary')}</summary>
      <div className="runner-import-body">
        <p className="muted">
          <RichText
            text={t('runnerImport.help')}
            tags={[0, 1, 2, 3, 4, 5, 6].map((k) => (
              <code key={k} />
            ))}
          />
        </p>
        <div className="runner-import-actions">
          <label htmlFor={`${id}-file`} className="runner-import-file">
            {t('runnerImport.file')}
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
            {t('runnerImport.export')}
          </button>
        </div>
        <FormError message={error} />
        {done && (
          <p className="notice" role="status" data-testid="import-summary">
            {t('runnerImport.done', {
              created: newRunners(done.Created),
              updated: runnersCount(done.Updated),
              unchanged: done.Unchanged,
              skipped:
                done.Errors.length > 0
                  ? t('runnerImport.skipped', { lines: linesCount(done.Errors.length) })
                  : '',
            })}
          </p>
        )}
        {preview && (
          <div className="runner-import-preview" data-testid="import-preview">
            <h3>{t('runnerImport.preview', { name: preview.file.name })}</h3>
            {result && (
              <p data-testid="import-plan">
                {t('runnerImport.plan', {
                  created: newRunners(result.Created),
                  updated: runnersCount(result.Updated),
                  unchanged: result.Unchanged,
                })}
              </p>
            )}
            {preview.errors.length > 0 && (
              <div className="runner-import-errors" role="alert" data-testid="import-errors">
                <p>
                  {result && skipInvalid
                    ? t('runnerImport.willSkip', { lines: linesCount(preview.errors.length) })
                    : t(
                        preview.errors.length === 1 ? 'runnerImport.blockedOne' : 'runnerImport.blockedMany',
                        {
                          count: preview.errors.length,
                          orSkip: result ? t('runnerImport.orSkip') : '',
                        },
                      )}
                </p>
                <ul>
                  {preview.errors.map((e) => (
                    <li key={`${e.Line}-${e.Message}`} data-testid="import-error">
                      <strong>{t('runnerImport.lineLabel', { line: e.Line })}</strong> {e.Message}
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
                {t('runnerImport.skip')}
              </label>
            )}
            {result && result.Rows.length > 0 && (
              <div className="runner-import-table-wrap">
                <table className="table runner-import-table" aria-label={t('runnerImport.tableLabel')}>
                  <thead>
                    <tr>
                      <th scope="col">{t('runnerImport.lineColumn')}</th>
                      <th scope="col">{t('runners.bib')}</th>
                      <th scope="col">{t('runners.name')}</th>
                      <th scope="col">{t('runnerImport.importColumn')}</th>
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
                        <td>{t(ACTION_LABEL[r.Action])}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {result.Rows.length > PREVIEW_ROWS && (
                  <p className="muted">
                    {t('runnerImport.more', { count: result.Rows.length - PREVIEW_ROWS })}
                  </p>
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
                {result && toImport === 0
                  ? t('runnerImport.nothing')
                  : t('runnerImport.importN', { runners: runnersCount(toImport) })}
              </button>
              <button
                type="button"
                className="btn btn-secondary btn-small"
                onClick={() => {
                  setPreview(null);
                  if (input.current) input.current.value = '';
                }}
              >
                {t('common.cancel')}
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
