import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deletedSchema, deviceIdParams, deviceRaceParams } from '../lib/http-schemas';
import { requireAdmin } from '../identity/auth-plugin';
import {
  adminDeviceWithIntervalSchema as adminDeviceSchema,
  deviceCreateWithIntervalSchema,
  deviceUpdateWithIntervalSchema,
} from './interval';
import type { DeviceService } from './service';

/** Device inventory for admins: the only responses that carry TrackingKey. */
const adminDeviceRoutes: FastifyPluginAsyncZod<{ devices: DeviceService }> = async (app, { devices }) => {
  const tags = ['admin'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/admin/devices',
    { schema: { tags, security, summary: 'All devices', response: { 200: z.array(adminDeviceSchema) } } },
    async (request) => {
      requireAdmin(request);
      return devices.listDevices();
    },
  );

  app.post(
    '/api/admin/devices',
    {
      schema: {
        tags,
        security,
        summary:
          'Add a device (Name; optional Source, HardwareId, ExpectedIntervalSeconds); a tracking key is generated',
        body: deviceCreateWithIntervalSchema,
        response: { 201: adminDeviceSchema },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      return reply.code(201).send(await devices.createDevice(request.body));
    },
  );

  app.put(
    '/api/admin/devices/:deviceId',
    {
      schema: {
        tags,
        security,
        summary: 'Edit Name/Source/HardwareId/ExpectedIntervalSeconds (409 on a duplicate Source+HardwareId)',
        params: deviceIdParams,
        body: deviceUpdateWithIntervalSchema,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return devices.updateDevice(request.params.deviceId, request.body);
    },
  );

  app.post(
    '/api/admin/devices/:deviceId/approve-claim',
    {
      schema: {
        tags,
        security,
        summary:
          'Approve a runner’s own tracker waiting for proof (PendingHardwareId becomes its HardwareId; 409 no_pending_claim, or duplicate_hardware_id when another device has that id)',
        params: deviceIdParams,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return devices.approveClaim(request.params.deviceId);
    },
  );

  app.post(
    '/api/admin/devices/:deviceId/rotate-key',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the tracking key (the old one stops working)',
        params: deviceIdParams,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return devices.rotateTrackingKey(request.params.deviceId);
    },
  );

  app.delete(
    '/api/admin/devices/:deviceId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a device',
        params: deviceIdParams,
        response: { 200: deletedSchema.extend({ DeviceId: z.number().int() }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      const { deviceId } = request.params;
      await devices.deleteDevice(deviceId);
      return { Deleted: true as const, DeviceId: deviceId };
    },
  );

  app.put(
    '/api/admin/devices/:deviceId/assign-race/:raceId',
    {
      schema: {
        tags,
        security,
        summary: 'Assign a device to a race that has not started (409 otherwise)',
        params: deviceRaceParams,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      const { deviceId, raceId } = request.params;
      return devices.assignDeviceToRace(deviceId, raceId);
    },
  );

  app.put(
    '/api/admin/devices/:deviceId/unassign',
    {
      schema: {
        tags,
        security,
        summary: 'Take a device out of its race (and from its runner)',
        params: deviceIdParams,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return devices.unassignDeviceFromRace(request.params.deviceId);
    },
  );
};

export default adminDeviceRoutes;
