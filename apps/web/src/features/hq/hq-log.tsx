import type { RunnerStatusLogEntry } from '@racebeacon/domain/entities';
import type { AlertLogEntry } from './alert-types';
import { alertSubject, KIND_LABEL, sortLog, type AlertMap } from './hq-store';

/** What each state means as a log line: an alert enters `open` when it is raised. */
const LOG_LABEL: Record<string, string> = {
  open: 'Raised',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
};

/** To the second: several changes often happen within one minute. */
const logTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A runner status change as a log line: "DNF · #12 Ana Silva · 23.4 km · Knee · by Director". */
function statusLine(e: RunnerStatusLogEntry): string {
  const who = `${e.BibNumber ? `#${e.BibNumber} ` : ''}${e.FirstName} ${e.LastName}`;
  return [
    e.Status ? `${e.Status} · ${who}` : `Status cleared · ${who}`,
    e.DistanceKm !== null ? `${e.DistanceKm.toFixed(1)} km` : null,
    e.Reason,
    e.By ? `by ${e.By}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The HQ log: every change of every alert's state, who made it, when, and the note; and every runner status set or
 * cleared (DNS, DNF, DSQ). Newest first.
 */
export function HqLog({
  entries,
  alerts,
  statusEntries = [],
}: {
  entries: readonly AlertLogEntry[];
  alerts: AlertMap;
  statusEntries?: readonly RunnerStatusLogEntry[];
}) {
  const rows = sortLog(entries);
  const statuses = [...statusEntries].sort((a, b) => Date.parse(b.At) - Date.parse(a.At));
  return (
    <section className="card hq-log" aria-labelledby="hq-log-title">
      <div className="section-head">
        <h2 id="hq-log-title">
          HQ log <span className="count">{rows.length + statuses.length}</span>
        </h2>
      </div>
      {statuses.length > 0 ? (
        <ol className="hq-log__list" data-testid="hq-status-log">
          {statuses.map((e, i) => (
            <li key={`s-${e.RunnerId}-${e.At}-${i}`} className="hq-log__entry" data-state="status">
              <time dateTime={e.At} className="hq-log__time">
                {logTime(e.At)}
              </time>
              <span>
                <strong>Runner status</strong> · {statusLine(e)}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      {rows.length === 0 && statuses.length === 0 ? (
        <p className="muted">Nothing has happened yet.</p>
      ) : (
        <ol className="hq-log__list">
          {rows.map((e, i) => {
            const alert = alerts.get(e.AlertId);
            return (
              <li key={`${e.AlertId}-${e.State}-${e.At}-${i}`} className="hq-log__entry" data-state={e.State}>
                <time dateTime={e.At} className="hq-log__time">
                  {logTime(e.At)}
                </time>
                <span>
                  <strong>{LOG_LABEL[e.State] ?? e.State}</strong>
                  {alert ? ` · ${KIND_LABEL[alert.Kind]} · ${alertSubject(alert)}` : ` · alert ${e.AlertId}`}
                  {e.By ? ` · by ${e.By}` : e.State === 'open' ? '' : ' · automatically'}
                </span>
                {e.Note ? <span className="hq-log__note">{e.Note}</span> : null}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
