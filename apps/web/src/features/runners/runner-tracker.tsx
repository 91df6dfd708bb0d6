import { useCallback, useEffect, useId, useState } from 'react';
import { createPortal } from 'react-dom';
import type { DeviceSource } from '@racebeacon/domain/entities';
import { fixAgeText } from '@racebeacon/domain/tracker-age';
import type { RunnerTracker } from '@racebeacon/domain/trackers';
import { ModalDialog } from '../../components/modal-dialog';
import { failureMessage } from '../../components/form-error';
import { confirmed } from '../../lib/confirm';
import { trackerApi } from './tracker-api';
import './runner-tracker.css';

/** The trackers a runner may bring, with what identifies each (the order the form offers them). */
const OWN_SOURCES: { source: DeviceSource; label: string; hardware: string | null }[] = [
  {
    source: 'mapshare',
    label: 'Garmin inReach (MapShare)',
    hardware: 'MapShare name (share.garmin.com/name)',
  },
  { source: 'spot', label: 'SPOT (own feed)', hardware: 'ESN (optional with a feed id)' },
  { source: 'osmand', label: 'Phone: Traccar Client / OsmAnd', hardware: null },
  { source: 'owntracks', label: 'Phone: OwnTracks', hardware: null },
  { source: 'inreach', label: 'Garmin inReach (race IPC account)', hardware: 'IMEI (15 digits)' },
  { source: 'lorawan', label: 'LoRaWAN', hardware: 'DevEUI (16 hex digits)' },
  { source: 'meshtastic', label: 'Meshtastic', hardware: 'Node number' },
];
const labelOf = (s: string) => OWN_SOURCES.find((o) => o.source === s)?.label ?? s;

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
        <dt>Tracker</dt>
        <dd>
          {tracker.Name} · {labelOf(tracker.Source)}
        </dd>
        {tracker.HardwareId && (
          <>
            <dt>{tracker.Source === 'mapshare' ? 'MapShare name' : 'Hardware id'}</dt>
            <dd className="wrap">{tracker.HardwareId}</dd>
          </>
        )}
        {tracker.FeedId && (
          <>
            <dt>SPOT feed</dt>
            <dd className="wrap">{tracker.FeedId}</dd>
          </>
        )}
        {tracker.LastFixTime && (
          <>
            <dt>Last fix</dt>
            <dd>
              {new Date(tracker.LastFixTime).toLocaleString()}
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
            <dt>Battery</dt>
            <dd>{tracker.BatteryState}</dd>
          </>
        )}
        {tracker.FeedPolledAt && (
          <>
            <dt>Feed read</dt>
            <dd>{new Date(tracker.FeedPolledAt).toLocaleTimeString()}</dd>
          </>
        )}
      </dl>
      {tracker.FeedError && (
        <p role="alert" className="notice" data-testid="tracker-feed-error">
          The feed could not be read: {tracker.FeedError}
        </p>
      )}
      {tracker.TrackingKey && (
        <p className="wrap">
          Tracking key for the phone app: <code>{tracker.TrackingKey}</code>
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
  return (
    <span className="runner-tracker">
      <button type="button" className="btn btn-small btn-ghost" onClick={() => setOpen(true)}>
        {hasDevice ? 'Tracker check' : 'Own tracker'}
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
    if (!confirmed(`Detach ${name}'s tracker? Its fixes stay with the runner.`)) return;
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
      title={`Tracker: ${name}`}
      onClose={onClose}
      onSubmit={() => void (tracker ? load() : attach())}
    >
      {tracker === undefined ? (
        <p className="muted">Checking…</p>
      ) : tracker ? (
        <TrackerCheck tracker={tracker} />
      ) : (
        <>
          <p className="muted">
            Attach the tracker the runner brings. It is used in this race only. Check it here before the
            start.
          </p>
          <div className="field">
            <label htmlFor={`${id}-source`}>Tracker</label>
            <select
              id={`${id}-source`}
              value={source}
              onChange={(e) => setSource(e.target.value as DeviceSource)}
            >
              {OWN_SOURCES.map((o) => (
                <option key={o.source} value={o.source}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          {own?.hardware && (
            <div className="field">
              <label htmlFor={`${id}-hw`}>{own.hardware}</label>
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
              <label htmlFor={`${id}-feed`}>SPOT feed id (from the runner's shared page)</label>
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
                {source === 'mapshare' ? 'MapShare password (if the page has one)' : 'Feed password (if any)'}
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
            Detach
          </button>
        )}
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          Close
        </button>
        {tracker !== undefined && (
          <button type="submit" className="btn btn-primary">
            {tracker ? 'Check again' : 'Attach tracker'}
          </button>
        )}
      </div>
    </ModalDialog>
  );
}
