import { useId } from 'react';
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

/** Open alerts (an SOS, a help message) from trackers that hold no race: no race HQ sees them, the admin does. */
export function TrackerAlertsSection() {
  const alerts = useResource(() => adminAlertsApi.open(), []);
  const id = useId();
  const { t } = useI18n();
  const list = (alerts.data ?? []).filter((a) => a.RaceId === null);

  return (
    <section aria-labelledby={`${id}-title`} className="tracker-alerts" style={{ marginTop: '2rem' }}>
      <div className="section-head">
        <h2 id={`${id}-title`}>{t('trackerAlerts.title')}</h2>
        <button type="button" className="btn btn-small btn-secondary" onClick={() => void alerts.reload()}>
          {t('trackerAlerts.refresh')}
        </button>
      </div>
      <p className="muted">{t('trackerAlerts.lead')}</p>
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
