import { createECDH } from 'node:crypto';
import {
  PUSH_KINDS,
  type PushSubscriptionInfo,
  type pushSubscriptionBodySchema,
  type pushUnsubscribeBodySchema,
} from '@racebeacon/domain';
import type { z } from 'zod';
import type { Db } from '../db/client';
import type { LiveService } from '../live/service';
import { badRequest, notFound } from '../lib/errors';
import { endpointAllowed, type PushEndpointRules } from './endpoints';
import { baselineSent, readRaceNews } from './notifier';
import {
  deleteSubscriptionsByEndpoint,
  findPublicRace,
  findRaceRunners,
  findSubscriptionForUpdate,
  upsertSubscription,
  type SentState,
} from './repository';
import type { VapidKeys } from './sender';

type SubscribeInput = z.output<typeof pushSubscriptionBodySchema>;
type UnsubscribeInput = z.output<typeof pushUnsubscribeBodySchema>;

/** Whether the browser's key is a point on P-256 (web-push would fail on it at every send otherwise). */
function validP256(key: string): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(Buffer.from(key, 'base64url'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Followers' push subscriptions, without an account: one per browser endpoint and race. The endpoint is the
 * secret: whoever knows it may change or delete that subscription, and nobody else can name it.
 */
export class PushService {
  constructor(
    private readonly db: Db,
    private readonly vapid: () => Promise<VapidKeys>,
    private readonly endpoints: PushEndpointRules,
    /** The live state (what the follower has already seen is not sent). */
    private readonly live: () => Pick<LiveService, 'state' | 'publicRaceAt'>,
    private readonly now: () => number = Date.now,
  ) {}

  async publicKey(): Promise<{ PublicKey: string }> {
    return { PublicKey: (await this.vapid()).publicKey };
  }

  /** Subscribes, or replaces what this browser follows in the race. `created` tells which. */
  async subscribe(input: SubscribeInput): Promise<{ created: boolean; subscription: PushSubscriptionInfo }> {
    const { endpoint, keys } = input.Subscription;
    if (!endpointAllowed(this.endpoints, endpoint))
      throw badRequest(
        'Subscription.endpoint is not a push service this server sends to (see PUSH_ENDPOINT_HOSTS).',
        'push_service_not_allowed',
      );
    if (!validP256(keys.p256dh)) throw badRequest('Subscription.keys.p256dh is not a P-256 public key.');
    const runnerIds = [...new Set(input.RunnerIds)].sort((a, b) => a - b);
    const kinds = input.Kinds ? PUSH_KINDS.filter((k) => input.Kinds!.includes(k)) : [...PUSH_KINDS];
    const locale = input.Locale ?? 'en';
    const nowMs = this.now();
    const news = await readRaceNews(this.db, this.live(), input.RaceId, nowMs);
    if (!news) throw notFound(`Race ${input.RaceId} not found.`);
    return this.db.transaction(async (tx) => {
      const race = await findPublicRace(tx, input.RaceId);
      if (!race) throw notFound(`Race ${input.RaceId} not found.`);
      const found = new Set((await findRaceRunners(tx, input.RaceId, runnerIds)).map((r) => r.id));
      const missing = runnerIds.filter((id) => !found.has(id));
      if (missing.length)
        throw badRequest(
          `RunnerIds: no runner ${missing.join(', ')} in race ${input.RaceId}.`,
          'unknown_runner',
        );
      const existing = await findSubscriptionForUpdate(tx, endpoint, input.RaceId);
      const before = (existing?.sentState ?? {}) as SentState;
      // Runners already followed keep what was sent; for a runner added now, what the public sees now is not news.
      const sentState: SentState = {};
      for (const id of runnerIds) sentState[String(id)] = before[String(id)] ?? baselineSent(news, id, nowMs);
      await upsertSubscription(tx, {
        endpoint,
        p256dh: keys.p256dh,
        auth: keys.auth,
        raceId: input.RaceId,
        runnerIds,
        kinds,
        locale,
        sentState,
      });
      return {
        created: !existing,
        subscription: { RaceId: input.RaceId, RunnerIds: runnerIds, Kinds: kinds, Locale: locale },
      };
    });
  }

  async unsubscribe(input: UnsubscribeInput): Promise<void> {
    const n = await deleteSubscriptionsByEndpoint(this.db, input.Endpoint, input.RaceId);
    if (n === 0) throw notFound('No subscription with this endpoint.', 'subscription_not_found');
  }
}
