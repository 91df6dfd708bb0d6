import { useState } from 'react';
import type { AdminDevice, Race } from '@racebeacon/domain/entities';
import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { SelectDialog } from '../../components/select-dialog';
import { formatDateTime } from '../../lib/format';
import { ALERT, CONFIRM, confirmed } from '../../lib/confirm';
import { useResource } from '../../lib/use-resource';
import { adminDevicesApi } from './api';
import { DeviceTrackingDialog, sourceLabel } from './device-tracking';
import { SpotFeedsSection } from './spot-feeds';
import { TrackerAlertsSection } from './tracker-alerts';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useI18n } from '../../i18n';
import { failureMessage } from '../../components/form-error';

/**
 * /add-device (admin): the tracking devices, their state, and which race and runner hold them. Race data belongs to
 * the races feature: the screen that renders this page passes in how to list the races a device may go to.
 */
export function DevicesPage({ assignableRaces }: { assignableRaces: () => Promise<Race[]> }) {
  const { t } = useI18n();
  useDocumentTitle(t('nav.devices'));
  const devices = useResource(() => adminDevicesApi.list(), []);
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState('');
  const [assigning, setAssigning] = useState<AdminDevice | null>(null);
  const [tracking, setTracking] = useState<AdminDevice | null>(null);
  const [races, setRaces] = useState<Race[] | undefined>();

  async function save() {
    const trimmed = name.trim();
    if (!trimmed) {
      window.alert(ALERT.deviceName);
      return;
    }
    await adminDevicesApi.create({ Name: trimmed });
    setName('');
    setAdding(false);
    await devices.reload();
  }

  async function remove(device: AdminDevice) {
    if (!confirmed(CONFIRM.deleteDevice)) return;
    await adminDevicesApi.remove(device.DeviceId).catch(() => undefined);
    await devices.reload();
  }

  async function approveClaim(device: AdminDevice, claimed: string) {
    if (!confirmed(t('devices.confirmApproveClaim', { id: claimed }))) return;
    try {
      await adminDevicesApi.approveClaim(device.DeviceId);
    } catch (err) {
      window.alert(failureMessage(err));
    }
    await devices.reload();
  }

  async function unassign(device: AdminDevice) {
    if (!confirmed(CONFIRM.unassignDevice)) return;
    await adminDevicesApi.unassign(device.DeviceId).catch(() => undefined);
    await devices.reload();
  }

  function openAssign(device: AdminDevice) {
    setRaces(undefined);
    setAssigning(device);
    // Only races that have not started yet are offered: the server refuses to put a device into a running race.
    assignableRaces()
      .then(setRaces)
      .catch(() => setRaces([]));
  }

  async function assign(raceId: string) {
    const device = assigning;
    setAssigning(null);
    if (!device) return;
    await adminDevicesApi.assignRace(device.DeviceId, Number(raceId)).catch(() => undefined);
    await devices.reload();
  }

  return (
    <>
      <PageHeader
        title={t('nav.devices')}
        actions={
          <button
            type="button"
            className={adding ? 'btn btn-ghost' : 'btn btn-primary'}
            aria-expanded={adding}
            aria-controls="add-device"
            onClick={() => setAdding((a) => !a)}
          >
            {adding ? t('common.cancel') : t('devices.add')}
          </button>
        }
      >
        {t('devices.lead')}
      </PageHeader>
      {/* First on the page: an SOS of a tracker in no race reaches no race HQ, only the admins, live. */}
      <TrackerAlertsSection />
      {adding && (
        <form
          id="add-device"
          className="card form-card inline-form"
          aria-label={t('devices.new')}
          onSubmit={(e) => {
            e.preventDefault();
            save().catch(() => undefined);
          }}
        >
          <div className="field">
            <label htmlFor="device-name">{t('runners.name')}</label>
            <input
              id="device-name"
              name="Name"
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.target.value)}
              autoFocus
            />
          </div>
          <button type="submit" className="btn btn-primary">
            {t('common.save')}
          </button>
        </form>
      )}
      {devices.data === undefined ? (
        devices.error ? (
          <EmptyState title={t('devices.loadFailed')} />
        ) : (
          <PageSpinner />
        )
      ) : devices.data.length === 0 ? (
        <EmptyState title={t('devices.none')}>{t('devices.noneLead')}</EmptyState>
      ) : (
        <div className="card table-card">
          <table className="table responsive-table" aria-label={t('nav.devices')}>
            <thead>
              <tr>
                <th scope="col">{t('runners.name')}</th>
                <th scope="col">{t('devices.source')}</th>
                <th scope="col">{t('runner.battery')}</th>
                <th scope="col">{t('devices.lastPing')}</th>
                <th scope="col">{t('races.race')}</th>
                <th scope="col">{t('board.runner')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('runners.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {devices.data.map((d) => (
                <tr key={d.DeviceId} data-testid="device-row">
                  <th scope="row" data-label={t('runners.name')}>
                    {d.Name}
                  </th>
                  <td data-label={t('devices.source')}>
                    {sourceLabel(d.Source)}
                    {d.HardwareId ? <span className="muted"> · {d.HardwareId}</span> : null}
                    {d.FeedError ? (
                      <span className="feed-error" data-testid="device-feed-error">
                        {t('devices.feedError', { error: d.FeedError })}
                      </span>
                    ) : null}
                    {d.PendingHardwareId ? (
                      <span className="feed-error" data-testid="device-claim-pending">
                        {t('devices.claimPending', { id: d.PendingHardwareId })}
                      </span>
                    ) : null}
                    {d.UplinksWithoutPosition ? (
                      <span className="feed-error" data-testid="device-uplinks-without-position">
                        {t('devices.uplinksWithoutPosition', {
                          count: d.UplinksWithoutPosition,
                          at: formatDateTime(d.LastUplinkWithoutPositionAt ?? null),
                        })}
                      </span>
                    ) : null}
                  </td>
                  <td data-label={t('runner.battery')}>{d.BatteryState ?? '-'}</td>
                  <td data-label={t('devices.lastPing')}>{formatDateTime(d.LastPingTime)}</td>
                  <td data-label={t('races.race')}>
                    {d.RaceName ?? (d.RaceId ? t('devices.raceNumber', { id: d.RaceId }) : '-')}
                  </td>
                  <td data-label={t('board.runner')}>
                    {d.RunnerName ??
                      (d.AssignedRunnerId ? t('devices.runnerNumber', { id: d.AssignedRunnerId }) : '-')}
                  </td>
                  <td className="row-actions">
                    {d.PendingHardwareId ? (
                      <button
                        type="button"
                        className="btn btn-small btn-primary"
                        data-testid="device-approve-claim"
                        onClick={() => void approveClaim(d, d.PendingHardwareId!)}
                      >
                        {t('devices.approveClaim')}
                      </button>
                    ) : null}
                    <button type="button" className="btn btn-small" onClick={() => setTracking(d)}>
                      {t('devices.tracking')}
                    </button>
                    {d.RaceId ? (
                      <button type="button" className="btn btn-small" onClick={() => void unassign(d)}>
                        {t('runners.unassign')}
                      </button>
                    ) : (
                      <button type="button" className="btn btn-small" onClick={() => openAssign(d)}>
                        {t('devices.assign')}
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(d)}
                      aria-label={t('devices.deleteLabel', { name: d.Name })}
                    >
                      {t('common.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {tracking && (
        <DeviceTrackingDialog
          device={tracking}
          onClose={() => setTracking(null)}
          onChanged={() => void devices.reload()}
        />
      )}
      <SpotFeedsSection />
      {assigning && (
        <SelectDialog
          title={t('devices.assignTitle', { name: assigning.Name })}
          label={t('races.race')}
          options={races?.map((r) => ({ value: String(r.RaceId), label: r.Name }))}
          emptyText={t('devices.noRace')}
          onConfirm={(v) => void assign(v)}
          onClose={() => setAssigning(null)}
        />
      )}
    </>
  );
}
