import type { Alert } from '@racebeacon/domain/alerts';
import type { AdminDevice, AvailableDevice, DeviceUplinkState, SpotFeed } from '@racebeacon/domain/entities';
import type { DeviceCreateBody, DeviceUpdateBody, SpotFeedBody } from '@racebeacon/domain/schemas';
import type { DeviceFeedState } from '@racebeacon/domain/trackers';
import { api, apiStream, type StreamOptions } from '../../lib/api-client';

/**
 * An admin's device with its own feed's state (a MapShare page, a SPOT device's own feed) and its uplinks without a
 * position (a misconfigured payload formatter).
 */
export type AdminDeviceWithFeed = AdminDevice &
  Partial<DeviceFeedState> &
  Partial<DeviceUplinkState> & {
    /** A runner's own tracker claimed by hardware id, not yet proven (issue 24): the id its director typed. */
    PendingHardwareId?: string | null;
  };

export const adminDevicesApi = {
  list: () => api.get<AdminDeviceWithFeed[]>('/admin/devices'),
  create: (body: DeviceCreateBody) => api.post<AdminDevice>('/admin/devices', body),
  remove: (deviceId: number) => api.del<unknown>(`/admin/devices/${deviceId}`),
  assignRace: (deviceId: number, raceId: number) =>
    api.put<unknown>(`/admin/devices/${deviceId}/assign-race/${raceId}`),
  unassign: (deviceId: number) => api.put<unknown>(`/admin/devices/${deviceId}/unassign`),
  /** A runner's own tracker waiting for proof of possession: its claimed id becomes its hardware id. */
  approveClaim: (deviceId: number) => api.post<unknown>(`/admin/devices/${deviceId}/approve-claim`),
};

/**
 * The director's side: the race's free devices, and handing one to a runner. The race screen (src/app/routes) gives
 * these to the runners table.
 */
export const directorDevicesApi = {
  available: (raceId: number) => api.get<AvailableDevice[]>(`/director/devices/race/${raceId}/available`),
  assignRunner: (deviceId: number, raceId: number, runnerId: number) =>
    api.put<unknown>(`/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`),
  unassign: (deviceId: number, raceId: number) =>
    api.put<unknown>(`/director/devices/${deviceId}/race/${raceId}/unassign`),
};

export const deviceTrackingApi = {
  /** FeedId/FeedPassword absent: unchanged; null: removed. */
  update: (
    deviceId: number,
    body: DeviceUpdateBody & { FeedId?: string | null; FeedPassword?: string | null },
  ) => api.put<AdminDeviceWithFeed>(`/admin/devices/${deviceId}`, body),
  rotateKey: (deviceId: number) => api.post<AdminDevice>(`/admin/devices/${deviceId}/rotate-key`),
};

export const spotFeedsApi = {
  list: () => api.get<SpotFeed[]>('/admin/spot-feeds'),
  create: (body: SpotFeedBody) => api.post<SpotFeed>('/admin/spot-feeds', body),
  remove: (id: number) => api.del<unknown>(`/admin/spot-feeds/${id}`),
};

/** Admins: alerts of every race and of devices that hold no race (RaceId null). */
export const adminAlertsApi = {
  open: () => api.get<Alert[]>('/admin/alerts?state=open', { background: true }),
  /** Live: `alerts` (open and acknowledged, of every race and of devices in no race), then one `alert` per change. */
  stream: (opts: StreamOptions) => apiStream('/admin/alerts/stream', opts),
};
