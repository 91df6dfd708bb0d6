import type { RunnerStatusLogEntry } from '@racebeacon/domain/entities';
import type { AlertLogEntry } from './alert-types';
import { alertSubject, KIND_LABEL, sortLog, type AlertMap } from './hq-store';
import { t, useI18n } from '../../i18n';
import { formatDistance, formatTimestampSeconds } from '../../i18n/format';

/** What each state means as a log line: an alert enters `open` when it is raised. */
const LOG_KEY = {
  open: 'hq.log.raised',
  acknowledged: 'hq.state.acknowledged',
  resolved: 'hq.state.resolved',
} as const;
const logLabel = (state: string) => (state in LOG_KEY ? t(LOG_KEY[state as keyof typeof LOG_KEY]) : state);

/** To the second: several changes often happen within one minute. */
const logTime = (iso: string) => formatTimestampSeconds(iso);

/** A runner status change as a log line: "DNF · #12 Ana Silva · 23.4 km · Knee · by Director". */
function statusLine(e: RunnerStatusLogEntry): string {
  const who = `${e.BibNumber ? `#${e.BibNumber} ` : ''}${e.FirstName} ${e.LastName}`;
  return [
    e.Status ? `${e.Status} · ${who}` : `${t('hq.log.statusCleared')} · ${who}`,
    e.DistanceKm !== null ? formatDistance(e.DistanceKm, 1) : null,
    e.Reason,
    e.By ? t('hq.log.by', { who: e.By }) : null,
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
  useI18n();
  const rows = sortLog(entries);
  const statuses = [...statusEntries].sort((a, b) => Date.parse(b.At) - Date.parse(a.At));
  return (
    <section className="card hq-log" aria-labelledby="hq-log-title">
      <div className="section-head">
        <h2 id="hq-log-title">
          {t('hq.log.title')} <span className="count">{rows.length + statuses.length}</span>
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
                <strong>{t('hq.log.runnerStatus')}</strong> · {statusLine(e)}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      {rows.length === 0 && statuses.length === 0 ? (
        <p className="muted">{t('hq.log.nothing')}</p>
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
                  <strong>{logLabel(e.State)}</strong>
                  {alert
                    ? ` · ${KIND_LABEL[alert.Kind]} · ${alertSubject(alert)}`
                    : ` · ${t('hq.log.alert', { id: e.AlertId })}`}
                  {e.By
                    ? ` · ${t('hq.log.by', { who: e.By })}`
                    : e.State === 'open'
                      ? ''
                      : ` · ${t('hq.automatically')}`}
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
