import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  availableDeviceSchema,
  deviceRaceParams,
  deviceRaceRunnerParams,
  deviceSchema,
  raceIdParams,
} from '../lib/http-schemas';
import { requireUser } from '../identity/auth-plugin';
import type { DeviceService } from './service';

/** Hand-overs of a race's devices to its runners, by the race's director. Never exposes tracking keys. */
const directorDeviceRoutes: FastifyPluginAsyncZod<{ devices: DeviceService }> = async (app, { devices }) => {
  const tags = ['director'];
  const security = [{ bearerAuth: [] }];

  app.get(
    '/api/director/devices/race/:raceId/available',
    {
      schema: {
        tags,
        security,
        summary: 'Devices of the race that no runner holds',
        params: raceIdParams,
        response: { 200: z.array(availableDeviceSchema) },
      },
    },
    async (request) => devices.listAvailableDevices(requireUser(request).id, request.params.raceId),
  );

  app.put(
    '/api/director/devices/:deviceId/race/:raceId/assign-runner/:runnerId',
    {
      schema: {
        tags,
        security,
        summary: 'Give a device of the race to a runner (409 if taken, not in the race, or runner has one)',
        params: deviceRaceRunnerParams,
        response: { 200: deviceSchema },
      },
    },
    async (request) => {
      const { deviceId, raceId, runnerId } = request.params;
      return devices.assignDeviceToRunner(requireUser(request).id, deviceId, raceId, runnerId);
    },
  );

  app.put(
    '/api/director/devices/:deviceId/race/:raceId/unassign',
    {
      schema: {
        tags,
        security,
        summary: 'Take a device from its runner (it stays in the race)',
        params: deviceRaceParams,
        response: { 200: deviceSchema },
      },
    },
    async (request) => {
      const { deviceId, raceId } = request.params;
      return devices.unassignDeviceFromRunner(requireUser(request).id, deviceId, raceId);
    },
  );
};

export default directorDeviceRoutes;
