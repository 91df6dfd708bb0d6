import { deviceCreateSchema, deviceUpdateSchema } from '@racebeacon/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../plugins/auth';
import * as devices from '../services/devices';
import { notifyRaceChanged } from '../services/race-events';
import { adminDeviceSchema, deletedSchema, deviceIdParams, deviceRaceParams } from './schemas';

/** Device inventory for admins: the only responses that carry TrackingKey. */
const adminDeviceRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['admin'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/admin/devices',
    { schema: { tags, security, summary: 'All devices', response: { 200: z.array(adminDeviceSchema) } } },
    async (request) => {
      requireAdmin(request);
      return devices.listDevices(app.db);
    },
  );

  app.post(
    '/api/admin/devices',
    {
      schema: {
        tags,
        security,
        summary: 'Add a device (Name; optional Source, HardwareId); a tracking key is generated',
        body: deviceCreateSchema,
        response: { 201: adminDeviceSchema },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      return reply.code(201).send(await devices.createDevice(app.db, request.body));
    },
  );

  app.put(
    '/api/admin/devices/:deviceId',
    {
      schema: {
        tags,
        security,
        summary: 'Edit Name/Source/HardwareId (409 on a duplicate Source+HardwareId)',
        params: deviceIdParams,
        body: deviceUpdateSchema,
        response: { 200: adminDeviceSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      const device = await devices.updateDevice(app.db, request.params.deviceId, request.body);
      if (device.RaceId !== null) await notifyRaceChanged(app, device.RaceId);
      return device;
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
      return devices.rotateTrackingKey(app.db, request.params.deviceId);
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
      const { raceId } = await devices.deleteDevice(app.db, deviceId);
      if (raceId !== null) await notifyRaceChanged(app, raceId);
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
      const { device, previousRaceId } = await devices.assignDeviceToRace(app.db, deviceId, raceId);
      if (previousRaceId !== null && previousRaceId !== raceId) await notifyRaceChanged(app, previousRaceId);
      await notifyRaceChanged(app, raceId);
      return device;
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
      const { device, previousRaceId } = await devices.unassignDeviceFromRace(
        app.db,
        request.params.deviceId,
      );
      if (previousRaceId !== null) await notifyRaceChanged(app, previousRaceId);
      return device;
    },
  );
};

export default adminDeviceRoutes;
