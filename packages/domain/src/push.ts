import { z } from 'zod';
import { LANGUAGES, type Language } from './languages';

/**
 * Web Push for followers (no account): the browser's push subscription for one race and the runners it follows,
 * the notification kinds, and the payload the service worker shows. Shared by the server (validation, OpenAPI,
 * the texts it sends) and the race pages (types).
 */

export const PUSH_KINDS = ['checkpoint', 'finished', 'dnf', 'no-news'] as const;
export const pushKindSchema = z.enum(PUSH_KINDS);
export type PushKind = z.infer<typeof pushKindSchema>;

/** Languages of the notification texts (the product's, `LANGUAGES`). */
export const PUSH_LOCALES = LANGUAGES;
export type PushLocale = Language;

/** Most runners one browser follows with notifications in one race. */
export const MAX_PUSH_RUNNERS = 50;
/** Silence after which followers hear "no news" (ms). */
export const PUSH_NO_NEWS_MS = 60 * 60_000;

/** Bytes a base64url string decodes to (no Buffer: the browser shares this). */
function decodedLength(s: string): number {
  const n = s.replace(/=+$/, '').length;
  return n % 4 === 1 ? -1 : Math.floor((n * 3) / 4);
}

/** base64url without padding, as PushSubscription.toJSON() gives the keys. */
const base64url = (what: string, bytes: number) =>
  z
    .string({ error: `${what} must be a base64url string` })
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, { error: `${what} must be a base64url string` })
    .refine((s) => decodedLength(s) === bytes, {
      error: `${what} must be ${bytes} bytes (base64url)`,
    });

const endpoint = z
  .string({ error: 'endpoint must be the push service URL of the subscription' })
  .max(1024, { error: 'endpoint must be at most 1024 characters' })
  .url({ error: 'endpoint must be an absolute URL' });

/** The browser's PushSubscription as `toJSON()` gives it (the expiration time is ignored). */
export const webPushSubscriptionSchema = z.object({
  endpoint,
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** The browser's P-256 public key, uncompressed (65 bytes). */
    p256dh: base64url('keys.p256dh', 65),
    /** The authentication secret (16 bytes). */
    auth: base64url('keys.auth', 16),
  }),
});

/** POST /api/open/push/subscriptions: subscribe (or change what) this browser follows in a race. */
export const pushSubscriptionBodySchema = z
  .object({
    Subscription: webPushSubscriptionSchema,
    RaceId: z.number({ error: 'RaceId must be a race id' }).int().min(1).max(2_147_483_647),
    RunnerIds: z
      .array(z.number({ error: 'RunnerIds must hold runner ids' }).int().min(1).max(2_147_483_647))
      .min(1, { error: 'RunnerIds must name at least one runner (to stop, DELETE the subscription)' })
      .max(MAX_PUSH_RUNNERS, { error: `RunnerIds may name at most ${MAX_PUSH_RUNNERS} runners` }),
    /** Which notifications (default: all). */
    Kinds: z.array(pushKindSchema).min(1).max(PUSH_KINDS.length).optional(),
    /** Language of the texts (default en): the page's language. */
    Locale: z.enum(PUSH_LOCALES, { error: `Locale must be one of ${PUSH_LOCALES.join(', ')}` }).optional(),
  })
  .meta({ id: 'PushSubscriptionBody' });
export type PushSubscriptionBody = z.input<typeof pushSubscriptionBodySchema>;

/** DELETE /api/open/push/subscriptions: the endpoint is the secret that proves the subscription is yours. */
export const pushUnsubscribeBodySchema = z
  .object({
    Endpoint: endpoint,
    /** Only this race's subscription (default: every race of this endpoint). */
    RaceId: z.number().int().min(1).max(2_147_483_647).optional(),
  })
  .meta({ id: 'PushUnsubscribeBody' });
export type PushUnsubscribeBody = z.input<typeof pushUnsubscribeBodySchema>;

export const pushKeySchema = z
  .object({ PublicKey: z.string().describe('The VAPID public key (applicationServerKey), base64url') })
  .meta({ id: 'PushKey' });
export type PushKey = z.infer<typeof pushKeySchema>;

export const pushSubscriptionSchema = z
  .object({
    RaceId: z.number().int(),
    RunnerIds: z.array(z.number().int()),
    Kinds: z.array(pushKindSchema),
    Locale: z.enum(PUSH_LOCALES),
  })
  .meta({ id: 'PushSubscription' });
export type PushSubscriptionInfo = z.infer<typeof pushSubscriptionSchema>;

/** What the service worker receives (JSON, encrypted by the push service's hop) and shows. */
export interface PushPayload {
  kind: PushKind;
  title: string;
  body: string;
  /** The runner's page. */
  url: string;
  /** Notifications of one runner replace each other. */
  tag: string;
  raceId: number;
  runnerId: number;
}
