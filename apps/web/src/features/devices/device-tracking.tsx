import { useId, useState } from 'react';
import { ModalDialog } from '../../components/modal-dialog';
import { DEVICE_SOURCES, type DeviceSource } from '@racebeacon/domain/entities';
import { deviceTrackingApi, type AdminDeviceWithFeed } from './api';
import './device-feed.css';

const SOURCE_LABELS: Record<DeviceSource, string> = {
  osmand: 'Traccar Client / OsmAnd (phone)',
  owntracks: 'OwnTracks (phone)',
  spot: 'SPOT (satellite)',
  inreach: 'Garmin inReach (satellite)',
  mapshare: 'Garmin MapShare (inReach, any plan)',
  lorawan: 'LoRaWAN (TTN / ChirpStack)',
  meshtastic: 'Meshtastic (LoRa mesh)',
};

/** What HardwareId means for each source (phones authenticate with the tracking key instead). */
const HARDWARE_HINT: Record<DeviceSource, string | null> = {
  osmand: null,
  owntracks: null,
  spot: "The messenger's ESN, e.g. 0-2468013",
  inreach: 'The IMEI (15 digits)',
  mapshare: 'The MapShare name, as in share.garmin.com/{name}',
  lorawan: 'The DevEUI (16 hex digits)',
  meshtastic: 'The node number, e.g. 2882400044 or !abcdef2c',
};

export const sourceLabel = (s: DeviceSource | undefined) => (s ? SOURCE_LABELS[s] : '-');

/**
 * How a device reports: its Source, the HardwareId its network uses, and (for phone apps) the tracking key to
 * type into the app, with a way to issue a new key when a phone is lost.
 */
export function DeviceTrackingDialog({
  device,
  onClose,
  onChanged,
}: {
  device: AdminDeviceWithFeed;
  onClose(): void;
  onChanged(): void;
}) {
  const id = useId();
  const [source, setSource] = useState<DeviceSource>(device.Source ?? 'osmand');
  const [hardwareId, setHardwareId] = useState(device.HardwareId ?? '');
  const [key, setKey] = useState(device.TrackingKey);
  const [feedId, setFeedId] = useState(device.FeedId ?? '');
  // Write-only: empty leaves the stored password as it is.
  const [feedPassword, setFeedPassword] = useState('');
  const [removePassword, setRemovePassword] = useState(false);
  const polled = source === 'spot' || source === 'mapshare';
  const [problem, setProblem] = useState<string | null>(null);
  const hint = HARDWARE_HINT[source];

  async function save() {
    const hw = hardwareId.trim();
    if (hint && !hw) {
      setProblem(`Please enter the hardware id: ${hint}.`);
      return;
    }
    try {
      await deviceTrackingApi.update(device.DeviceId, {
        Source: source,
        HardwareId: hw || null,
        FeedId: source === 'spot' ? feedId.trim() || null : null,
        ...(removePassword || !polled
          ? { FeedPassword: null }
          : feedPassword
            ? { FeedPassword: feedPassword }
            : {}),
      });
      onChanged();
      onClose();
    } catch (err) {
      setProblem((err as { message?: string }).message ?? 'The device could not be saved.');
    }
  }

  async function rotate() {
    if (!window.confirm('Issue a new tracking key? The phone must then be set up with the new key.')) return;
    try {
      const updated = await deviceTrackingApi.rotateKey(device.DeviceId);
      setKey(updated.TrackingKey);
      onChanged();
    } catch (err) {
      setProblem((err as { message?: string }).message ?? 'The key could not be replaced.');
    }
  }

  return (
    <ModalDialog title={`Tracking: ${device.Name}`} onClose={onClose} onSubmit={() => void save()}>
      <div className="field">
        <label htmlFor={`${id}-source`}>Source</label>
        <select
          id={`${id}-source`}
          value={source}
          onChange={(e) => setSource(e.target.value as DeviceSource)}
          autoFocus
        >
          {DEVICE_SOURCES.map((s) => (
            <option key={s} value={s}>
              {SOURCE_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-hw`}>Hardware id</label>
        <input
          id={`${id}-hw`}
          value={hardwareId}
          maxLength={100}
          placeholder={hint ?? 'Not needed: phones use the tracking key'}
          onChange={(e) => setHardwareId(e.target.value)}
        />
      </div>
      {source === 'spot' && (
        <div className="field">
          <label htmlFor={`${id}-feed`}>Own SPOT feed id (optional)</label>
          <input
            id={`${id}-feed`}
            value={feedId}
            maxLength={100}
            placeholder="Empty: the device is on a shared SPOT feed"
            onChange={(e) => setFeedId(e.target.value)}
          />
        </div>
      )}
      {polled && (
        <div className="field">
          <label htmlFor={`${id}-feedpw`}>
            {source === 'mapshare' ? 'MapShare password' : 'Feed password'}
            {device.HasFeedPassword ? ' (set; type to replace)' : ' (if any)'}
          </label>
          <input
            id={`${id}-feedpw`}
            type="password"
            value={feedPassword}
            maxLength={200}
            autoComplete="new-password"
            disabled={removePassword}
            onChange={(e) => setFeedPassword(e.target.value)}
          />
          {device.HasFeedPassword && (
            <label className="feed-password-remove">
              <input
                type="checkbox"
                checked={removePassword}
                onChange={(e) => setRemovePassword(e.target.checked)}
              />{' '}
              Remove the password
            </label>
          )}
        </div>
      )}
      {polled && device.FeedError && (
        <p role="alert" className="notice">
          The feed could not be read: {device.FeedError}
        </p>
      )}
      <div className="field">
        <label htmlFor={`${id}-key`}>Tracking key</label>
        <input id={`${id}-key`} value={key} readOnly onFocus={(e) => e.currentTarget.select()} />
        <p className="muted">
          Traccar Client: device identifier. OsmAnd: the <code>id</code> in the tracking URL. OwnTracks: the
          password. Keep it secret: whoever has it can report positions for this device.
        </p>
      </div>
      {problem && (
        <p role="alert" className="notice">
          {problem}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn btn-ghost" onClick={() => void rotate()}>
          Rotate key
        </button>
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary">
          Save
        </button>
      </div>
    </ModalDialog>
  );
}
