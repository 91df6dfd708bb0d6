import {
  alertActionSchema,
  alertLogEntrySchema,
  alertSchema,
  alertSettingsSchema,
  alertStateSchema,
  type Alert,
} from '@racebeacon/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAdmin, requireUser } from '../identity/auth-plugin';
import { closeRefusedStream } from '../lib/close-refused';
import { id, raceIdParams } from '../lib/http-schemas';
import { clientKey } from '../lib/client-key';
import { sendStreamRefusal, STREAM_CLIENT_RETRY_AFTER_S, StreamLimitError } from '../live/stream-admission';
import type { AlertService } from './service';
import { ALL_ALERTS, type AlertStreamHub } from './stream';

const stateQuery = z.object({ state: alertStateSchema.optional() });
const alertIdParams = z.object({ alertId: id });

/**
 * Race HQ: a race's alerts, their log and thresholds, the acknowledge/resolve actions and the live HQ stream (the
 * race's director and admins; another director sees 404, as on every director route), and every alert for admins.
 */
const alertRoutes: FastifyPluginAsyncZod<{ alerts: AlertService; hub: AlertStreamHub }> = async (
  app,
  { alerts, hub },
) => {
  const tags = ['hq'];
  const security = [{ bearerAuth: [] }];

  /**
   * Opens an HQ stream once the caller is allowed: capped per client like the live streams
   * (LIVE_MAX_STREAMS_PER_CLIENT; 429 too_many_streams with Retry-After, the connection closed).
   */
  const openStream = async (
    request: FastifyRequest,
    reply: FastifyReply,
    key: number | typeof ALL_ALERTS,
    load: () => Promise<Alert[]>,
  ) => {
    const slot = hub.admit(clientKey(request.ip));
    if (!slot) {
      const max = app.config.LIVE_MAX_STREAMS_PER_CLIENT;
      return sendStreamRefusal(reply, new StreamLimitError('client', STREAM_CLIENT_RETRY_AFTER_S, max));
    }
    let current: Alert[];
    try {
      current = await load();
    } catch (err) {
      slot.release();
      throw err;
    }
    reply.hijack();
    hub.open(key, reply.raw, current, slot);
  };

  app.get(
    '/api/director/races/:raceId/alerts',
    {
      schema: {
        tags,
        security,
        summary: 'Alerts of a race, newest first (state: open, acknowledged or resolved; all without it)',
        params: raceIdParams,
        querystring: stateQuery,
        response: { 200: z.array(alertSchema) },
      },
    },
    async (request) =>
      alerts.listRaceAlerts(requireUser(request), request.params.raceId, request.query.state),
  );

  app.get(
    '/api/director/races/:raceId/alerts/log',
    {
      schema: {
        tags,
        security,
        summary: 'Every change of state of the race’s alerts (raised, acknowledged, resolved), oldest first',
        params: raceIdParams,
        response: { 200: z.array(alertLogEntrySchema) },
      },
    },
    async (request) => alerts.raceLog(requireUser(request), request.params.raceId),
  );

  app.get(
    '/api/director/races/:raceId/alerts/stream',
    {
      schema: {
        tags,
        security,
        summary:
          'Server-Sent Events (bearer token in the Authorization header; read with fetch): `alerts` with the open ' +
          'and acknowledged alerts, then one `alert` per change; a comment every 15 s. Capped per client address ' +
          'like the live streams (LIVE_MAX_STREAMS_PER_CLIENT, HQ streams counted apart): 429 too_many_streams ' +
          'with Retry-After, the connection closed',
        params: raceIdParams,
      },
      onSend: closeRefusedStream,
    },
    async (request, reply) => {
      const { raceId } = request.params;
      await alerts.checkRaceAccess(requireUser(request), raceId);
      return openStream(request, reply, raceId, () => alerts.activeRaceAlerts(raceId));
    },
  );

  app.post(
    '/api/director/alerts/:alertId/acknowledge',
    {
      schema: {
        tags,
        security,
        summary:
          'Acknowledge an alert with an optional note (409 alert_already_acknowledged, alert_resolved)',
        params: alertIdParams,
        body: alertActionSchema.optional(),
        response: { 200: alertSchema },
      },
    },
    async (request) =>
      alerts.acknowledge(requireUser(request), request.params.alertId, request.body?.Note || null),
  );

  app.post(
    '/api/director/alerts/:alertId/resolve',
    {
      schema: {
        tags,
        security,
        summary: 'Resolve an alert with an optional note (409 alert_resolved)',
        params: alertIdParams,
        body: alertActionSchema.optional(),
        response: { 200: alertSchema },
      },
    },
    async (request) =>
      alerts.resolve(requireUser(request), request.params.alertId, request.body?.Note || null),
  );

  app.get(
    '/api/director/races/:raceId/alert-settings',
    {
      schema: {
        tags,
        security,
        summary: 'The race’s alert thresholds (the defaults until set)',
        params: raceIdParams,
        response: { 200: alertSettingsSchema },
      },
    },
    async (request) => alerts.getSettings(requireUser(request), request.params.raceId),
  );

  app.put(
    '/api/director/races/:raceId/alert-settings',
    {
      schema: {
        tags,
        security,
        summary: 'Set the race’s alert thresholds (a missing field takes its default)',
        params: raceIdParams,
        body: alertSettingsSchema,
        response: { 200: alertSettingsSchema },
      },
    },
    async (request) => alerts.putSettings(requireUser(request), request.params.raceId, request.body),
  );

  app.get(
    '/api/admin/alerts/stream',
    {
      schema: {
        tags: ['admin', ...tags],
        security,
        summary:
          'Server-Sent Events for admins (bearer token in the Authorization header; read with fetch): `alerts` with ' +
          'the open and acknowledged alerts of every race and of devices in no race, then one `alert` per change',
      },
      onSend: closeRefusedStream,
    },
    async (request, reply) => {
      requireAdmin(request);
      return openStream(request, reply, ALL_ALERTS, () => alerts.activeAllAlerts());
    },
  );

  app.get(
    '/api/admin/alerts',
    {
      schema: {
        tags: ['admin', ...tags],
        security,
        summary: 'Alerts of every race and of devices that hold no race (RaceId null), newest first',
        querystring: stateQuery,
        response: { 200: z.array(alertSchema) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return alerts.listAllAlerts(request.query.state);
    },
  );
};

export default alertRoutes;
