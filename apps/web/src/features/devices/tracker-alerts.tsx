import { useEffect, useId, useState } from 'react';
import type { Alert } from '@racebeacon/domain/alerts';
import { formatDateTime } from '../../lib/format';
import { useResource } from '../../lib/use-resource';
import { adminAlertsApi } from './api';
import { t, useI18n } from '../../i18n';
import { ALERT_KIND_KEY, alertDetail } from '../../i18n/alert-detail';

/** OpenStreetMap at the alert's position, or null when none is known. */
export function osmUrl(a: Pick<Alert, 'Latitude' | 'Longitude'>): string | null {
  if (a.Latitude === null || a.Longitude === null) return null;
  const lat = a.Latitude.toFixed(5);
  const lon = a.Longitude.toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=15/${lat}/${lon}`;
}

/** "SOS", "Help request", "No movement": the alert kind for people, in the viewer's language. */
export function kindLabel(kind: Alert['Kind']): string {
  return t(ALERT_KIND_KEY[kind]);
}

/** The admins' alert stream's events folded into the unresolved alerts by id (`alerts`: all; `alert`: one). */
export function foldAlertEvent(
  cur: ReadonlyMap<number, Alert>,
  event: string,
  data: unknown,
): Map<number, Alert> {
  const next = new Map(event === 'alerts' ? [] : cur);
  const list =
    event === 'alerts' && Array.isArray(data) ? (data as Alert[]) : event === 'alert' ? [data as Alert] : [];
  for (const a of list) {
    if (!a || typeof a.AlertId !== 'number') continue;
    if (a.State === 'resolved') next.delete(a.AlertId);
    else next.set(a.AlertId, a);
  }
  return next;
}

/**
 * Open alerts (an SOS, a help message) from trackers that hold no race: no race HQ sees them, the admin does — live
 * (the admins' alert stream, reconnecting with back-off; the list read once as a fallback while it is away), at the
 * top of the Devices screen, announced (`role="alert"`) when one is open.
 */
export function TrackerAlertsSection() {
  const fallback = useResource(() => adminAlertsApi.open(), []);
  const [live, setLive] = useState<Map<number, Alert> | null>(null);
  const id = useId();
  const { t } = useI18n();

  useEffect(() => {
    const ctrl = new AbortController();
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      try {
        await adminAlertsApi.stream({
          signal: ctrl.signal,
          onOpen: () => {
            failures = 0;
          },
          onEvent: (e) => {
            let data: unknown = null;
            try {
              data = JSON.parse(e.data);
            } catch {
              return;
            }
            setLive((cur) => foldAlertEvent(cur ?? new Map(), e.event, data));
          },
        });
      } catch (err) {
        if (ctrl.signal.aborted) return;
        // A 401/403 is not retried: the list read once stays.
        const status = (err as { status?: number }).status ?? 0;
        if (status === 401 || status === 403) return;
      }
      if (ctrl.signal.aborted) return;
      failures++;
      timer = setTimeout(() => void connect(), Math.min(30_000, 1_000 * 2 ** (failures - 1)));
    };
    void connect();
    return () => {
      ctrl.abort();
      clearTimeout(timer);
    };
  }, []);

  const all = live ? [...live.values()] : (fallback.data ?? []);
  const list = all
    .filter((a) => a.RaceId === null && a.State !== 'resolved')
    .sort((a, b) => Date.parse(b.RaisedAt) - Date.parse(a.RaisedAt));
  const alerts = { data: live ? list : fallback.data, error: live ? null : fallback.error };

  return (
    <section
      aria-labelledby={`${id}-title`}
      className={`tracker-alerts${list.length ? ' tracker-alerts--open' : ''}`}
      data-live={live ? 'true' : 'false'}
      style={{ marginTop: '1rem' }}
    >
      <div className="section-head">
        <h2 id={`${id}-title`}>{t('trackerAlerts.title')}</h2>
        <button type="button" className="btn btn-small btn-secondary" onClick={() => void fallback.reload()}>
          {t('trackerAlerts.refresh')}
        </button>
      </div>
      <p className="muted">{t('trackerAlerts.lead')}</p>
      {list.length ? (
        <p
          role="alert"
          className="tracker-alerts__banner"
          data-testid="tracker-alerts-banner"
          style={{
            background: 'var(--danger-soft)',
            color: 'var(--danger)',
            padding: '0.6rem 0.9rem',
            borderRadius: '6px',
          }}
        >
          <strong>{t('trackerAlerts.banner', { count: list.length })}</strong>
        </p>
      ) : null}
      {alerts.error ? (
        <p role="alert">{t('trackerAlerts.loadFailed')}</p>
      ) : !alerts.data ? (
        <p className="muted">{t('hq.loading')}</p>
      ) : list.length === 0 ? (
        <p>{t('trackerAlerts.none')}</p>
      ) : (
        <div className="card table-card">
          <table aria-label={t('trackerAlerts.title')}>
            <thead>
              <tr>
                <th scope="col">{t('trackerAlerts.kind')}</th>
                <th scope="col">{t('runners.device')}</th>
                <th scope="col">{t('hq.log.raised')}</th>
                <th scope="col">{t('trackerAlerts.message')}</th>
                <th scope="col">{t('trackerAlerts.position')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((a) => {
                const map = osmUrl(a);
                return (
                  <tr key={a.AlertId} data-alert-id={a.AlertId} data-kind={a.Kind}>
                    <td>{kindLabel(a.Kind)}</td>
                    <td>
                      {a.DeviceName ?? (a.DeviceId !== null ? t('hq.device', { id: a.DeviceId }) : '-')}
                    </td>
                    <td>
                      <time dateTime={a.RaisedAt}>{formatDateTime(a.RaisedAt)}</time>
                    </td>
                    <td>{alertDetail(a)}</td>
                    <td>
                      {map ? (
                        <a href={map} target="_blank" rel="noreferrer">
                          {t('trackerAlerts.openMap')}
                        </a>
                      ) : (
                        t('trackerAlerts.unknown')
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
