import type { AdminDevice, Device, DeviceCreateBody } from '@racebeacon/domain';
import { api } from '../../lib/api-client';

export const adminDevicesApi = {
  list: () => api.get<AdminDevice[]>('/admin/devices'),
  create: (body: DeviceCreateBody) => api.post<AdminDevice>('/admin/devices', body),
  remove: (deviceId: number) => api.del<unknown>(`/admin/devices/${deviceId}`),
  assignRace: (deviceId: number, raceId: number) =>
    api.put<unknown>(`/admin/devices/${deviceId}/assign-race/${raceId}`),
  unassign: (deviceId: number) => api.put<unknown>(`/admin/devices/${deviceId}/unassign`),
};

export const directorDevicesApi = {
  available: (raceId: number) => api.get<Device[]>(`/director/devices/race/${raceId}/available`),
  assignRunner: (deviceId: number, raceId: number, runnerId: number) =>
    api.put<unknown>(`/director/devices/${deviceId}/race/${raceId}/assign-runner/${runnerId}`),
  unassign: (deviceId: number, raceId: number) =>
    api.put<unknown>(`/director/devices/${deviceId}/race/${raceId}/unassign`),
};
