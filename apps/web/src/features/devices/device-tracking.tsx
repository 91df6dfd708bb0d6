import { useId, useState } from 'react';
import { ModalDialog } from '../../components/modal-dialog';
import { DEVICE_SOURCES, type DeviceSource } from '@racebeacon/domain/entities';
import { deviceTrackingApi, type AdminDeviceWithFeed } from './api';
import './device-feed.css';
import { t, useI18n, type TextKey } from '../../i18n';
import { RichText } from '../../i18n/rich-text';

/** Each source for people, in the viewer's language (read when shown). */
const SOURCE_KEYS = {
  osmand: 'deviceTracking.sources.osmand',
  owntracks: 'deviceTracking.sources.owntracks',
  spot: 'deviceTracking.sources.spot',
  inreach: 'deviceTracking.sources.inreach',
  mapshare: 'deviceTracking.sources.mapshare',
  lorawan: 'deviceTracking.sources.lorawan',
  meshtastic: 'deviceTracking.sources.meshtastic',
} as const satisfies Record<DeviceSource, TextKey>;

/** What HardwareId means for each source (phones authenticate with the tracking key instead). */
const HARDWARE_HINT: Record<DeviceSource, TextKey | null> = {
  osmand: null,
  owntracks: null,
  spot: 'deviceTracking.hintSpot',
  inreach: 'deviceTracking.hintInreach',
  mapshare: 'deviceTracking.hintMapshare',
  lorawan: 'deviceTracking.hintLorawan',
  meshtastic: 'deviceTracking.hintMeshtastic',
};

export const sourceLabel = (s: DeviceSource | undefined) => (s ? t(SOURCE_KEYS[s]) : '-');

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
  useI18n();
  const [source, setSource] = useState<DeviceSource>(device.Source ?? 'osmand');
  const [hardwareId, setHardwareId] = useState(device.HardwareId ?? '');
  const [key, setKey] = useState(device.TrackingKey);
  const [feedId, setFeedId] = useState(device.FeedId ?? '');
  // Write-only: empty leaves the stored password as it is.
  const [feedPassword, setFeedPassword] = useState('');
  const [removePassword, setRemovePassword] = useState(false);
  const polled = source === 'spot' || source === 'mapshare';
  const [problem, setProblem] = useState<string | null>(null);
  const hintKey = HARDWARE_HINT[source];
  const hint = hintKey ? t(hintKey) : null;

  async function save() {
    const hw = hardwareId.trim();
    if (hint && !hw) {
      setProblem(t('deviceTracking.enterHardwareId', { hint }));
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
      setProblem((err as { message?: string }).message ?? t('deviceTracking.saveFailed'));
    }
  }

  async function rotate() {
    if (!window.confirm(t('deviceTracking.confirmRotate'))) return;
    try {
      const updated = await deviceTrackingApi.rotateKey(device.DeviceId);
      setKey(updated.TrackingKey);
      onChanged();
    } catch (err) {
      setProblem((err as { message?: string }).message ?? t('deviceTracking.rotateFailed'));
    }
  }

  return (
    <ModalDialog
      title={t('deviceTracking.title', { name: device.Name })}
      onClose={onClose}
      onSubmit={() => void save()}
    >
      <div className="field">
        <label htmlFor={`${id}-source`}>{t('devices.source')}</label>
        <select
          id={`${id}-source`}
          value={source}
          onChange={(e) => setSource(e.target.value as DeviceSource)}
          autoFocus
        >
          {DEVICE_SOURCES.map((s) => (
            <option key={s} value={s}>
              {t(SOURCE_KEYS[s])}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-hw`}>{t('deviceTracking.hardwareId')}</label>
        <input
          id={`${id}-hw`}
          value={hardwareId}
          maxLength={100}
          placeholder={hint ?? t('deviceTracking.notNeeded')}
          onChange={(e) => setHardwareId(e.target.value)}
        />
      </div>
      {source === 'spot' && (
        <div className="field">
          <label htmlFor={`${id}-feed`}>{t('deviceTracking.ownFeed')}</label>
          <input
            id={`${id}-feed`}
            value={feedId}
            maxLength={100}
            placeholder={t('deviceTracking.ownFeedEmpty')}
            onChange={(e) => setFeedId(e.target.value)}
          />
        </div>
      )}
      {polled && (
        <div className="field">
          <label htmlFor={`${id}-feedpw`}>
            {source === 'mapshare' ? t('deviceTracking.mapsharePassword') : t('deviceTracking.feedPassword')}
            {device.HasFeedPassword ? t('deviceTracking.passwordSet') : t('deviceTracking.passwordIfAny')}
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
              {t('deviceTracking.removePassword')}
            </label>
          )}
        </div>
      )}
      {polled && device.FeedError && (
        <p role="alert" className="notice">
          {t('deviceTracking.feedError', { error: device.FeedError })}
        </p>
      )}
      <div className="field">
        <label htmlFor={`${id}-key`}>{t('deviceTracking.key')}</label>
        <input id={`${id}-key`} value={key} readOnly onFocus={(e) => e.currentTarget.select()} />
        <p className="muted">
          <RichText text={t('deviceTracking.keyHelp')} tags={[<code key="id" />]} />
        </p>
      </div>
      {problem && (
        <p role="alert" className="notice">
          {problem}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn btn-ghost" onClick={() => void rotate()}>
          {t('deviceTracking.rotate')}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary">
          {t('common.save')}
        </button>
      </div>
    </ModalDialog>
  );
}
