import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Race } from '@racebeacon/domain/entities';
import type { CourseTrack, LeaderboardRow, RunnerPositions } from '@racebeacon/domain/live';
import { useAppConfig } from '../../lib/app-config';
import { formatDateTime } from '../../lib/format';
import { useDocumentTitle } from '../../lib/use-document-title';
import type { RunnerStatusLogEntry } from '@racebeacon/domain/entities';
import type { Alert, AlertLogEntry } from './alert-types';
import { AlertCard, type AlertActions, type RunnerContact } from './alert-card';
import { AlertSettingsForm } from './alert-settings-form';
import { hqApi } from './api';
import { HqLog } from './hq-log';
import type { MapFocus } from './hq-map';
import {
  activeAlerts,
  alertSubject,
  hqTitle,
  newSosIds,
  openCount,
  openSos,
  resolvedAlerts,
  type AlertMap,
} from './hq-store';
import { createBeeper, type Beeper } from './sound';
import { useAlertStream, type StreamStatus } from './use-alert-stream';
import './hq.css';
import { t, useI18n } from '../../i18n';

const HqMap = lazy(() => import('./hq-map'));

/** How often the map's runner positions are read again (the alerts themselves arrive on the stream). */
const MAP_REFRESH_MS = 20_000;

const STATUS_KEY = {
  connecting: 'live.connecting',
  live: 'live.title',
  reconnecting: 'live.reconnecting',
  denied: 'hq.noAccess',
} as const satisfies Record<StreamStatus, string>;

/**
 * Race HQ: the race's safety alerts, live, for its director or an admin. Open alerts first (SOS on top), the map,
 * the resolved alerts and the HQ log, the thresholds. An SOS flashes a banner and, once the director has turned the
 * sound on (browsers allow sound only after a click), beeps.
 */
export function RaceHqPanel({ race, canEditSettings }: { race: Race; canEditSettings: boolean }) {
  const raceId = race.RaceId;
  const config = useAppConfig();
  useI18n();
  const [log, setLog] = useState<AlertLogEntry[]>([]);
  const [statusLog, setStatusLog] = useState<RunnerStatusLogEntry[]>([]);
  const logTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reloadLog = useCallback(() => {
    clearTimeout(logTimer.current);
    logTimer.current = setTimeout(() => {
      hqApi.log(raceId).then(setLog, () => undefined);
      hqApi.statusLog(raceId).then(setStatusLog, () => undefined);
    }, 200);
  }, [raceId]);
  useEffect(() => () => clearTimeout(logTimer.current), []);

  const { alerts, status, loaded, apply } = useAlertStream(raceId, reloadLog);
  const now = useNow(15_000);

  // Live data for the map and the battery column: course once, positions and leaderboard every 20 s.
  const [track, setTrack] = useState<CourseTrack | null>(null);
  const [positions, setPositions] = useState<RunnerPositions[]>([]);
  const [rows, setRows] = useState<LeaderboardRow[]>([]);
  useEffect(() => {
    const ctrl = new AbortController();
    hqApi.courseTrack(raceId, ctrl.signal).then(setTrack, () => undefined);
    const load = () => {
      hqApi.positions(raceId, ctrl.signal).then(
        (p) => setPositions(p ?? []),
        () => undefined,
      );
      hqApi.leaderboard(raceId, ctrl.signal).then(
        (r) => setRows(r ?? []),
        () => undefined,
      );
    };
    load();
    const t = setInterval(load, MAP_REFRESH_MS);
    return () => {
      ctrl.abort();
      clearInterval(t);
    };
  }, [raceId]);
  // A new alert: read the positions and batteries again now, so the map and the card show the latest.
  const alertCount = alerts.size;
  useEffect(() => {
    if (alertCount === 0) return;
    const ctrl = new AbortController();
    hqApi.positions(raceId, ctrl.signal).then(
      (p) => p && setPositions(p),
      () => undefined,
    );
    hqApi.leaderboard(raceId, ctrl.signal).then(
      (r) => r && setRows(r),
      () => undefined,
    );
    return () => ctrl.abort();
  }, [raceId, alertCount]);

  // Who to call: the runners' Phone and EmergencyContact, read once, and again when a new alert names a runner whose
  // contact is not known (a runner added or edited since). The key only grows with new alerts: no loop on a runner
  // who has none.
  const [contacts, setContacts] = useState<ReadonlyMap<number, RunnerContact>>(new Map());
  const contactless = useMemo(() => {
    const ids: number[] = [];
    for (const a of alerts.values()) {
      if (a.RunnerId === null) continue;
      const c = contacts.get(a.RunnerId);
      if (!c || (!c.Phone && !c.EmergencyContact)) ids.push(a.AlertId);
    }
    return ids.sort((x, y) => x - y).join(',');
  }, [alerts, contacts]);
  useEffect(() => {
    const ctrl = new AbortController();
    hqApi.runners(raceId, ctrl.signal).then(
      (list) =>
        setContacts(
          new Map(list.map((r) => [r.RunnerId, { Phone: r.Phone, EmergencyContact: r.EmergencyContact }])),
        ),
      () => undefined,
    );
    return () => ctrl.abort();
  }, [raceId, contactless]);
  const contactOf = (a: Alert): RunnerContact | null =>
    a.RunnerId !== null ? (contacts.get(a.RunnerId) ?? null) : null;

  const byRunner = useMemo(() => new Map(rows.map((r) => [r.RunnerId, r])), [rows]);
  const labels = useMemo(
    () => new Map(rows.map((r) => [r.RunnerId, r.BibNumber ?? String(r.RunnerId)])),
    [rows],
  );
  const active = useMemo(() => activeAlerts(alerts), [alerts]);
  const resolved = useMemo(() => resolvedAlerts(alerts), [alerts]);
  const sos = useMemo(() => openSos(alerts), [alerts]);
  const open = openCount(alerts);
  useDocumentTitle(hqTitle(race.Name, open));

  // Sound: off until the director turns it on (that click is the gesture browsers require).
  const beeper = useRef<Beeper | null>(null);
  const [soundOn, setSoundOn] = useState(false);
  const toggleSound = () => {
    if (soundOn) {
      beeper.current?.close();
      beeper.current = null;
      setSoundOn(false);
      return;
    }
    beeper.current = createBeeper();
    if (beeper.current) {
      setSoundOn(true);
      beeper.current.beep();
    }
  };
  useEffect(() => () => beeper.current?.close(), []);
  const previous = useRef<AlertMap | null>(null);
  useEffect(() => {
    // The first snapshot is not news; SOS alerts arriving after it are.
    if (!loaded) return;
    const prev = previous.current;
    previous.current = alerts;
    if (prev && newSosIds(prev, alerts).length > 0) beeper.current?.beep();
  }, [alerts, loaded]);

  const [focus, setFocus] = useState<MapFocus | null>(null);
  const mapRef = useRef<HTMLDivElement>(null);
  const showOnMap = useCallback(
    (a: Alert) => {
      const latest = a.RunnerId !== null ? positions.find((p) => p.RunnerId === a.RunnerId)?.Latest : null;
      const lat = latest ? latest[1] : a.Latitude;
      const lon = latest ? latest[2] : a.Longitude;
      if (lat === null || lon === null) return;
      setFocus((f) => ({ lat, lon, seq: (f?.seq ?? 0) + 1 }));
      mapRef.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    },
    [positions],
  );

  const actions: AlertActions = useMemo(
    () => ({
      acknowledge: async (a, note) => {
        apply(await hqApi.acknowledge(a.AlertId, note));
        reloadLog();
      },
      resolve: async (a, note) => {
        apply(await hqApi.resolve(a.AlertId, note));
        reloadLog();
      },
    }),
    [apply, reloadLog],
  );

  const lastFixOf = (a: Alert): string | null => {
    const row = a.RunnerId !== null ? byRunner.get(a.RunnerId) : undefined;
    return row?.LastPingTime ?? null;
  };
  const batteryOf = (a: Alert): string | null => {
    const row = a.RunnerId !== null ? byRunner.get(a.RunnerId) : undefined;
    return row?.BatteryState ?? null;
  };

  if (status === 'denied')
    return (
      <div className="empty-state">
        <p className="empty-title">{t('hq.deniedTitle')}</p>
        <p role="alert">{t('hq.denied')}</p>
      </div>
    );

  return (
    <div className="hq">
      <div className="hq-head">
        <div>
          <h1 className="hq-title">{t('hq.title')}</h1>
          <p className="muted hq-race">{race.Name}</p>
        </div>
        <div className="hq-head__controls">
          <p className={`hq-connection hq-connection--${status}`} role="status" data-status={status}>
            {t(STATUS_KEY[status])}
          </p>
          <button
            type="button"
            className={`btn btn-small hq-sound ${soundOn ? 'btn-secondary' : ''}`}
            aria-pressed={soundOn}
            title={soundOn ? t('hq.soundOnTitle') : t('hq.soundOffTitle')}
            onClick={toggleSound}
          >
            {/* One label, its state in aria-pressed (a toggle whose name flips reads ambiguously). */}
            <span className="hq-sound__box" aria-hidden="true">
              {soundOn ? '✓' : ''}
            </span>
            {t('hq.sound')}
          </button>
        </div>
      </div>

      {sos.length > 0 ? (
        <div className="hq-sos-banner" role="alert" data-testid="sos-banner">
          <strong>{t('alertKind.sos')}</strong>{' '}
          {sos
            .map((a) => t('hq.sosRaised', { who: alertSubject(a), time: formatDateTime(a.RaisedAt) }))
            .join('; ')}
          {` — ${t('hq.sosAction')}`}
        </div>
      ) : null}

      <div className="hq-grid">
        <section className="card hq-alerts" aria-labelledby="hq-open-title">
          <div className="section-head">
            <h2 id="hq-open-title">
              {t('hq.alerts')}{' '}
              <span className="count" data-testid="open-count">
                {active.length}
              </span>
            </h2>
            <span className="muted hq-open-line">
              {t('hq.openLine', { open, acknowledged: active.length - open })}
            </span>
          </div>
          {!loaded ? (
            <p className="muted">{status === 'reconnecting' ? t('live.reconnecting') : t('hq.loading')}</p>
          ) : active.length === 0 ? (
            <p className="hq-all-clear">{t('hq.allClear')}</p>
          ) : (
            <ul className="hq-alert-list" aria-label={t('hq.activeList')}>
              {active.map((a) => (
                <AlertCard
                  key={a.AlertId}
                  alert={a}
                  battery={batteryOf(a)}
                  lastFix={lastFixOf(a)}
                  now={now}
                  actions={actions}
                  onShowOnMap={showOnMap}
                  contact={contactOf(a)}
                />
              ))}
            </ul>
          )}
          <details className="hq-resolved">
            <summary>
              {t('hq.state.resolved')} <span className="count">{resolved.length}</span>
            </summary>
            {resolved.length === 0 ? (
              <p className="muted">{t('hq.noneYetDot')}</p>
            ) : (
              <ul className="hq-alert-list" aria-label={t('hq.resolvedList')}>
                {resolved.map((a) => (
                  <AlertCard
                    key={a.AlertId}
                    alert={a}
                    battery={null}
                    lastFix={null}
                    now={now}
                    actions={actions}
                    onShowOnMap={showOnMap}
                  />
                ))}
              </ul>
            )}
          </details>
        </section>

        <section className="card hq-map-card" aria-labelledby="hq-map-title" ref={mapRef}>
          <h2 id="hq-map-title">{t('hq.map')}</h2>
          <p className="muted hq-map-note">{t('hq.mapNote')}</p>
          <Suspense fallback={<div className="hq-map hq-map--loading">{t('common.loadingMap')}</div>}>
            <HqMap
              track={track}
              positions={positions}
              labels={labels}
              alerts={active}
              focus={focus}
              now={now}
              tileUrl={config.map.tileUrl}
              tileAttribution={config.map.tileAttribution}
            />
          </Suspense>
        </section>
      </div>

      <HqLog entries={log} alerts={alerts} statusEntries={statusLog} />

      {canEditSettings ? (
        <details className="card hq-settings-card">
          <summary>
            <h2>{t('hq.settings')}</h2>
          </summary>
          <AlertSettingsForm raceId={raceId} />
        </details>
      ) : null}
    </div>
  );
}

/** A clock that ticks every `ms`, for "raised 5 min ago". */
function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
