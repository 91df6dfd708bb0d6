import {
  pushKeySchema,
  pushSubscriptionBodySchema,
  pushSubscriptionSchema,
  pushUnsubscribeBodySchema,
} from '@racebeacon/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../lib/errors';
import { clientKey } from '../lib/client-key';
import { TokenBuckets } from '../lib/token-buckets';
import type { PushService } from './service';

/** Subscription changes per client (`clientKey`: an IPv4 address or an IPv6 /64; malformed ones count): 20 at once, then one every 6 s (per process). */
export const PUSH_RATE = { capacity: 20, perSecond: 1 / 6 };

/**
 * Web Push for followers, without an account: the server's VAPID public key, and a browser's subscription for a
 * race's followed runners (the endpoint, which only that browser and its push service know, identifies it).
 */
const openPushRoutes: FastifyPluginAsyncZod<{ push: PushService; rate?: typeof PUSH_RATE }> = async (
  app,
  { push, rate },
) => {
  const tags = ['open'];
  const buckets = new TokenBuckets(rate ?? PUSH_RATE);
  const limited = async (request: FastifyRequest, reply: FastifyReply) => {
    if (buckets.take(clientKey(request.ip))) return;
    reply.header('Retry-After', '6');
    throw new HttpError(
      429,
      'rate_limited',
      'Too many subscription changes from this address; try again shortly.',
    );
  };

  app.get(
    '/api/open/push/key',
    {
      schema: {
        tags,
        summary: 'The VAPID public key to subscribe with (PushManager.subscribe applicationServerKey)',
        response: { 200: pushKeySchema },
      },
    },
    async () => push.publicKey(),
  );

  app.post(
    '/api/open/push/subscriptions',
    {
      onRequest: limited,
      schema: {
        tags,
        summary:
          'Be told (Web Push) when followed runners pass a checkpoint, finish, DNF, or are silent for an hour. ' +
          'One subscription per browser endpoint and race; posting again replaces the runners and kinds. ' +
          '201 created, 200 replaced; 404 race not public; 400 unknown runner, bad keys, push service not allowed',
        body: pushSubscriptionBodySchema,
        response: { 200: pushSubscriptionSchema, 201: pushSubscriptionSchema },
      },
    },
    async (request, reply) => {
      const { created, subscription } = await push.subscribe(request.body);
      return reply.code(created ? 201 : 200).send(subscription);
    },
  );

  app.delete(
    '/api/open/push/subscriptions',
    {
      onRequest: limited,
      schema: {
        tags,
        summary:
          'Stop notifications: the subscriptions of this endpoint (of one race with RaceId). 404 when there is none',
        body: pushUnsubscribeBodySchema,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await push.unsubscribe(request.body);
      return reply.code(204).send(null);
    },
  );
};

export default openPushRoutes;
