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

/**
 * /add-device (admin): the tracking devices, their state, and which race and runner hold them. Race data belongs to
 * the races feature: the screen that renders this page passes in how to list the races a device may go to.
 */
export function DevicesPage({ assignableRaces }: { assignableRaces: () => Promise<Race[]> }) {
  useDocumentTitle('Devices');
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
        title="Devices"
        actions={
          <button
            type="button"
            className={adding ? 'btn btn-ghost' : 'btn btn-primary'}
            aria-expanded={adding}
            aria-controls="add-device"
            onClick={() => setAdding((a) => !a)}
          >
            {adding ? 'Cancel' : 'Add Device +'}
          </button>
        }
      >
        Tracking devices, their battery and last report, and the race and runner holding each one.
      </PageHeader>
      {adding && (
        <form
          id="add-device"
          className="card form-card inline-form"
          aria-label="New device"
          onSubmit={(e) => {
            e.preventDefault();
            save().catch(() => undefined);
          }}
        >
          <div className="field">
            <label htmlFor="device-name">Name</label>
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
            Save
          </button>
        </form>
      )}
      {devices.data === undefined ? (
        devices.error ? (
          <EmptyState title="Devices could not be loaded." />
        ) : (
          <PageSpinner />
        )
      ) : devices.data.length === 0 ? (
        <EmptyState title="No devices yet.">Use 'Add Device +' to register a tracker.</EmptyState>
      ) : (
        <div className="card table-card">
          <table className="table responsive-table" aria-label="Devices">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Source</th>
                <th scope="col">Battery</th>
                <th scope="col">Last ping</th>
                <th scope="col">Race</th>
                <th scope="col">Runner</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {devices.data.map((d) => (
                <tr key={d.DeviceId} data-testid="device-row">
                  <th scope="row" data-label="Name">
                    {d.Name}
                  </th>
                  <td data-label="Source">
                    {sourceLabel(d.Source)}
                    {d.HardwareId ? <span className="muted"> · {d.HardwareId}</span> : null}
                    {d.FeedError ? (
                      <span className="feed-error" data-testid="device-feed-error">
                        Feed: {d.FeedError}
                      </span>
                    ) : null}
                  </td>
                  <td data-label="Battery">{d.BatteryState ?? '-'}</td>
                  <td data-label="Last ping">{formatDateTime(d.LastPingTime)}</td>
                  <td data-label="Race">{d.RaceName ?? (d.RaceId ? `Race #${d.RaceId}` : '-')}</td>
                  <td data-label="Runner">
                    {d.RunnerName ?? (d.AssignedRunnerId ? `Runner #${d.AssignedRunnerId}` : '-')}
                  </td>
                  <td className="row-actions">
                    <button type="button" className="btn btn-small" onClick={() => setTracking(d)}>
                      Tracking
                    </button>
                    {d.RaceId ? (
                      <button type="button" className="btn btn-small" onClick={() => void unassign(d)}>
                        Unassign
                      </button>
                    ) : (
                      <button type="button" className="btn btn-small" onClick={() => openAssign(d)}>
                        Assign to race
                      </button>
                    )}
                    <button
                      type="button"
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(d)}
                      aria-label={`Delete ${d.Name}`}
                    >
                      Delete
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
      <TrackerAlertsSection />
      <SpotFeedsSection />
      {assigning && (
        <SelectDialog
          title={`Assign ${assigning.Name} to a race`}
          label="Race"
          options={races?.map((r) => ({ value: String(r.RaceId), label: r.Name }))}
          emptyText="No race is waiting to start."
          onConfirm={(v) => void assign(v)}
          onClose={() => setAssigning(null)}
        />
      )}
    </>
  );
}
