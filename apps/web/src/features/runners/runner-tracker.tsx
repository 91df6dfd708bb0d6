import { useCallback, useEffect, useId, useState } from 'react';
import { createPortal } from 'react-dom';
import type { DeviceSource } from '@racebeacon/domain/entities';
import type { RunnerTracker } from '@racebeacon/domain/trackers';
import { ModalDialog } from '../../components/modal-dialog';
import { failureMessage } from '../../components/form-error';
import { confirmed } from '../../lib/confirm';
import type { ParseKeys } from 'i18next';
import { t, useI18n } from '../../i18n';
import { trackerTexts } from '../../i18n/tracker';
import { formatClockSeconds, formatTimestamp } from '../../i18n/format';
import { RichText } from '../../i18n/rich-text';
import { trackerApi } from './tracker-api';
import './runner-tracker.css';

/** The dialog's own texts (a lazy namespace: they come with the race page's chunk, not the first screen). */
const tt = trackerTexts.t;
type TrackerKey = ParseKeys<'tracker'>;

/**
 * The trackers a runner may bring, with what identifies each (the order the form offers them): catalogue keys,
 * read when shown.
 */
const OWN_SOURCES: { source: DeviceSource; label: TrackerKey; hardware: TrackerKey | null }[] = [
  {
    source: 'mapshare',
    label: 'source.mapshare',
    hardware: 'hardware.mapshare',
  },
  { source: 'spot', label: 'source.spot', hardware: 'hardware.spot' },
  { source: 'osmand', label: 'source.osmand', hardware: null },
  { source: 'owntracks', label: 'source.owntracks', hardware: null },
  { source: 'inreach', label: 'source.inreach', hardware: 'hardware.inreach' },
  { source: 'lorawan', label: 'source.lorawan', hardware: 'hardware.lorawan' },
  {
    source: 'meshtastic',
    label: 'source.meshtastic',
    hardware: 'hardware.meshtastic',
  },
];
const labelOf = (s: string) => {
  const own = OWN_SOURCES.find((o) => o.source === s);
  return own ? tt(own.label) : s;
};

/**
 * The age of the tracker's last fix in the viewer's language: "last fix just now", "last fix 12 min ago",
 * "last fix 3 h 5 min ago", "last fix 2 days ago".
 */
export function fixAgeText(ageSeconds: number | null): string {
  if (ageSeconds === null) return tt('age.none');
  const s = Math.max(0, Math.round(ageSeconds));
  if (s < 60) return tt('age.now');
  const min = Math.floor(s / 60);
  if (min < 60) return tt('age.minutes', { min });
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? tt('age.hoursMinutes', { h, min: min % 60 }) : tt('age.hours', { h });
  return tt('age.days', { days: Math.floor(h / 24) });
}

/** Fresh enough to trust before the start: a fix within the last 30 minutes. */
const FRESH_S = 30 * 60;

function TrackerCheck({ tracker }: { tracker: RunnerTracker }) {
  const fresh = tracker.LastFixAgeSeconds !== null && tracker.LastFixAgeSeconds <= FRESH_S;
  return (
    <div className="tracker-check" data-testid="tracker-check">
      <p>
        <span className={`pill ${fresh ? 'pill-accent' : 'pill-muted'}`} data-testid="tracker-age">
          {fixAgeText(tracker.LastFixAgeSeconds)}
        </span>
      </p>
      <dl className="facts">
        <dt>{tt('tracker')}</dt>
        <dd>
          {tracker.Name} · {labelOf(tracker.Source)}
        </dd>
        {tracker.HardwareId && (
          <>
            <dt>{tracker.Source === 'mapshare' ? tt('mapshareName') : t('deviceTracking.hardwareId')}</dt>
            <dd className="wrap">{tracker.HardwareId}</dd>
          </>
        )}
        {tracker.FeedId && (
          <>
            <dt>{tt('spotFeed')}</dt>
            <dd className="wrap">{tracker.FeedId}</dd>
          </>
        )}
        {tracker.LastFixTime && (
          <>
            <dt>{tt('lastFix')}</dt>
            <dd>
              {formatTimestamp(tracker.LastFixTime)}
              {tracker.LastLatitude !== null && tracker.LastLongitude !== null && (
                <>
                  {' '}
                  ({tracker.LastLatitude.toFixed(4)}, {tracker.LastLongitude.toFixed(4)})
                </>
              )}
            </dd>
          </>
        )}
        {tracker.BatteryState && (
          <>
            <dt>{tt('battery')}</dt>
            <dd>{tracker.BatteryState}</dd>
          </>
        )}
        {tracker.FeedPolledAt && (
          <>
            <dt>{tt('feedRead')}</dt>
            <dd>{formatClockSeconds(tracker.FeedPolledAt)}</dd>
          </>
        )}
      </dl>
      {tracker.Pending && (
        // Attached by hardware id: nothing from it is received until the device proves it is the runner's.
        <div className="notice" role="status" data-testid="tracker-pending">
          <p>{tt('pending.lead')}</p>
          <p className="wrap">
            {tracker.ClaimCode ? (
              <RichText
                text={tt('pending.code', { code: tracker.ClaimCode })}
                tags={[<code key="code" data-testid="tracker-claim-code" />]}
              />
            ) : (
              tt('pending.admin')
            )}
          </p>
        </div>
      )}
      {tracker.FeedError && (
        <p role="alert" className="notice" data-testid="tracker-feed-error">
          {t('deviceTracking.feedError', { error: tracker.FeedError })}
        </p>
      )}
      {tracker.TrackingKey && (
        <p className="wrap">
          <RichText text={tt('trackingKey', { key: tracker.TrackingKey })} tags={[<code key="key" />]} />
        </p>
      )}
    </div>
  );
}

/**
 * The runner row's tracker button: the pre-race tracker check (the runner's tracker, its last fix and how old it
 * is, the feed's error) and, for a runner without one, attaching the runner's own tracker — a MapShare page, a
 * SPOT with its own feed, a phone — created for this race only.
 */
export function RunnerTrackerButton({
  runnerId,
  name,
  hasDevice,
  onChanged,
}: {
  runnerId: number;
  name: string;
  hasDevice: boolean;
  onChanged(): Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  useI18n();
  return (
    <span className="runner-tracker">
      <button type="button" className="btn btn-small btn-ghost" onClick={() => setOpen(true)}>
        {hasDevice ? tt('check') : tt('own')}
      </button>
      {/* In the body, not in the table cell: the dialog takes none of the stacked row's alignment. */}
      {open &&
        createPortal(
          <TrackerDialog
            runnerId={runnerId}
            name={name}
            onChanged={onChanged}
            onClose={() => setOpen(false)}
          />,
          document.body,
        )}
    </span>
  );
}

function TrackerDialog({
  runnerId,
  name,
  onChanged,
  onClose,
}: {
  runnerId: number;
  name: string;
  onChanged(): Promise<void>;
  onClose(): void;
}) {
  const id = useId();
  useI18n();
  const [tracker, setTracker] = useState<RunnerTracker | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const [source, setSource] = useState<DeviceSource>('mapshare');
  const [hardwareId, setHardwareId] = useState('');
  const [feedId, setFeedId] = useState('');
  const [password, setPassword] = useState('');
  const own = OWN_SOURCES.find((o) => o.source === source);

  const load = useCallback(async () => {
    setProblem(null);
    try {
      setTracker(await trackerApi.get(runnerId));
    } catch (err) {
      setProblem(failureMessage(err));
      setTracker(null);
    }
  }, [runnerId]);
  useEffect(() => void load(), [load]);

  async function attach() {
    setProblem(null);
    try {
      const created = await trackerApi.attach(runnerId, {
        Source: source,
        HardwareId: hardwareId.trim() || null,
        FeedId: source === 'spot' ? feedId.trim() || null : null,
        FeedPassword: source === 'spot' || source === 'mapshare' ? password || null : null,
      });
      setTracker(created);
      await onChanged();
    } catch (err) {
      setProblem(failureMessage(err));
    }
  }

  async function detach() {
    if (!confirmed(tt('confirmDetach', { name }))) return;
    setProblem(null);
    try {
      await trackerApi.detach(runnerId);
      setTracker(null);
      await onChanged();
    } catch (err) {
      setProblem(failureMessage(err));
    }
  }

  return (
    <ModalDialog
      title={tt('title', { name })}
      onClose={onClose}
      onSubmit={() => void (tracker ? load() : attach())}
    >
      {tracker === undefined ? (
        <p className="muted">{tt('checking')}</p>
      ) : tracker ? (
        <TrackerCheck tracker={tracker} />
      ) : (
        <>
          <p className="muted">{tt('lead')}</p>
          <div className="field">
            <label htmlFor={`${id}-source`}>{tt('tracker')}</label>
            <select
              id={`${id}-source`}
              value={source}
              onChange={(e) => setSource(e.target.value as DeviceSource)}
            >
              {OWN_SOURCES.map((o) => (
                <option key={o.source} value={o.source}>
                  {tt(o.label)}
                </option>
              ))}
            </select>
          </div>
          {own?.hardware && (
            <div className="field">
              <label htmlFor={`${id}-hw`}>{tt(own.hardware)}</label>
              <input
                id={`${id}-hw`}
                value={hardwareId}
                maxLength={100}
                autoComplete="off"
                onChange={(e) => setHardwareId(e.target.value)}
              />
            </div>
          )}
          {source === 'spot' && (
            <div className="field">
              <label htmlFor={`${id}-feed`}>{tt('feedId')}</label>
              <input
                id={`${id}-feed`}
                value={feedId}
                maxLength={100}
                autoComplete="off"
                onChange={(e) => setFeedId(e.target.value)}
              />
            </div>
          )}
          {(source === 'spot' || source === 'mapshare') && (
            <div className="field">
              <label htmlFor={`${id}-pw`}>
                {source === 'mapshare' ? tt('mapsharePassword') : tt('feedPassword')}
              </label>
              <input
                id={`${id}-pw`}
                type="password"
                value={password}
                maxLength={200}
                autoComplete="new-password"
                onChange={(e) => setPassword(e.target.value)}
              />
            </div>
          )}
        </>
      )}
      {problem && (
        <p role="alert" className="notice">
          {problem}
        </p>
      )}
      <div className="dialog-actions tracker-dialog-actions">
        {tracker && (
          <button type="button" className="btn btn-danger" onClick={() => void detach()}>
            {tt('detach')}
          </button>
        )}
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          {tt('close')}
        </button>
        {tracker !== undefined && (
          <button type="submit" className="btn btn-primary">
            {tracker ? tt('checkAgain') : tt('attach')}
          </button>
        )}
      </div>
    </ModalDialog>
  );
}
