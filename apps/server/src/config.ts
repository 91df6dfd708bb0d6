import { z } from 'zod';
import { parseTrustProxy } from './lib/trust-proxy';
import { parseFrameAncestors } from './platform/frame-ancestors';
import { defaultMaxStreams } from './live/sse-hub';
import { defaultMaxConnectionsPerClient } from './platform/connection-limit';
import { parsePushEndpointHosts } from './push/endpoints';

/**
 * Configuration, parsed and validated once at boot. Every variable is listed in .env.example and the README.
 * A bad value stops the process with a message naming the variable.
 */
const optionalUrl = z
  .string()
  .trim()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));
const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));
const boolFlag = z
  .enum(['on', 'off', 'true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v === 'on' || v === 'true' || v === '1'));

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PUBLIC_URL: optionalUrl,
  // off | hop count | proxy addresses/CIDRs; see lib/trust-proxy.ts
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTrustProxy(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  PRODUCT_NAME: z.string().trim().min(1).default('RaceBeacon'),
  CONTACT_EMAIL: z.string().trim().email().default('contact@racebeacon.example'),
  OIDC_ISSUER: optionalUrl,
  OIDC_AUDIENCE: optionalString,
  OIDC_CLIENT_ID: optionalString,
  OIDC_API_SCOPE: optionalString,
  ADMIN_GROUP_ID: optionalString,
  ADMIN_EMAILS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().email('ADMIN_EMAILS must be a comma-separated list of email addresses'))),
  // production: the demo race and demo accounts are off unless DEMO / DEMO_ACCOUNTS ask for them
  NODE_ENV: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DEMO: boolFlag,
  DEMO_ACCOUNTS: boolFlag,
  TILE_URL: z.string().trim().min(1).default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  TILE_ATTRIBUTION: z
    .string()
    .default('&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'),
  OFF_COURSE_METERS: z.coerce.number().positive().default(200),
  // Live SSE streams per process; unset: derived from the open-file limit (see defaultMaxStreams in live/sse-hub.ts)
  LIVE_MAX_STREAMS: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().int().min(1).optional(),
  ),
  LIVE_MAX_STREAMS_PER_CLIENT: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().int().min(0).default(50),
  ),
  // Open connections per client address (every route); unset: LIVE_MAX_STREAMS_PER_CLIENT + 50, at most a quarter of
  // the open-file limit (see defaultMaxConnectionsPerClient in platform/connection-limit.ts); 0: no cap
  MAX_CONNECTIONS_PER_CLIENT: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().int().min(0).optional(),
  ),
  SPOT_API_URL: z
    .string()
    .trim()
    .url()
    .default('https://api.findmespot.com/spot-main-web/consumer/rest-api/2.0/public/feed'),
  SPOT_POLL_SECONDS: z.coerce.number().min(1).default(150),
  // Garmin MapShare raw KML feeds: `${MAPSHARE_API_URL}/{mapshareName}?d1=…`
  MAPSHARE_API_URL: z.string().trim().url().default('https://share.garmin.com/Feed/Share'),
  // Race HQ: how often the self-clearing alerts (no-movement, lost-signal, low-battery, off-course) are evaluated;
  // 0 turns the sweep off (tests call it themselves)
  ALERT_SWEEP_SECONDS: z.coerce
    .number()
    .min(0)
    .max(600)
    .refine((v) => v === 0 || v >= 1, 'must be 0 (off) or 1 to 600')
    .default(15),
  INREACH_OUTBOUND_TOKEN: optionalString,
  LORAWAN_WEBHOOK_SECRET: optionalString,
  MQTT_URL: optionalUrl,
  MQTT_TOPIC: z.string().trim().min(1).default('msh/+/2/json/#'),
  // Web Push to followers (push/): the VAPID subject the push services may contact (mailto: or https: URL;
  // default mailto:CONTACT_EMAIL), the push services the server sends to (see push/endpoints.ts), and how often
  // the notifier looks for news (0: off, tests run it themselves)
  PUSH_SUBJECT: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .refine((v) => v === undefined || /^mailto:[^\s@]+@[^\s@]+$/.test(v) || /^https:\/\/[^\s]+$/.test(v), {
      message: 'must be a mailto: address or an https: URL',
    }),
  PUSH_ENDPOINT_HOSTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parsePushEndpointHosts(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  PUSH_NOTIFY_SECONDS: z.coerce
    .number()
    .min(0)
    .max(600)
    .refine((v) => v === 0 || v >= 1, 'must be 0 (off) or 1 to 600')
    .default(15),
  // Sites that may frame the /embed/ pages (CSP frame-ancestors; space/comma-separated, default * = any site)
  EMBED_FRAME_ANCESTORS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseFrameAncestors(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  /** Public base URL without trailing slash (PUBLIC_URL, or http://localhost:PORT). */
  publicUrl: string;
  /** True when no OIDC_ISSUER is configured: the embedded provider under /oidc is used. */
  embeddedIdp: boolean;
  issuer: string;
  audience: string;
  clientId: string;
  apiScope: string;
  adminGroupId: string;
  /** The demo race (never with DATABASE_URL or NODE_ENV=production unless DEMO asks for it). */
  demo: boolean;
  /** One-click demo accounts of the embedded sign-in page (off with DATABASE_URL or in production unless asked for). */
  demoAccounts: boolean;
  /** LIVE_MAX_STREAMS, or the default derived from the process's open-file limit. */
  liveMaxStreams: number;
  /** MAX_CONNECTIONS_PER_CLIENT, or its default (0: no cap). */
  maxConnectionsPerClient: number;
  /** PUSH_SUBJECT, or mailto:CONTACT_EMAIL. */
  pushSubject: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT || 3000}`).replace(/\/+$/, '');
  const embeddedIdp = !e.OIDC_ISSUER;
  if (!embeddedIdp) {
    const missing = (['OIDC_AUDIENCE', 'OIDC_CLIENT_ID', 'OIDC_API_SCOPE', 'ADMIN_GROUP_ID'] as const).filter(
      (k) => !e[k],
    );
    if (missing.length) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when OIDC_ISSUER is set`).join('\n')}`,
      );
    }
  }
  const audience = e.OIDC_AUDIENCE ?? 'racebeacon-api';
  // The quick start (embedded database, not production) gets the demo; anything else only when asked for.
  const quickStart = !e.DATABASE_URL && e.NODE_ENV !== 'production';
  return {
    ...e,
    publicUrl,
    embeddedIdp,
    // An external issuer is kept exactly as given: its discovery document's "issuer" is what tokens carry.
    issuer: e.OIDC_ISSUER ?? `${publicUrl}/oidc`,
    audience,
    clientId: e.OIDC_CLIENT_ID ?? 'racebeacon-web',
    apiScope: e.OIDC_API_SCOPE ?? 'api://racebeacon/races.manage',
    adminGroupId: e.ADMIN_GROUP_ID ?? 'racebeacon-admins',
    demo: e.DEMO ?? quickStart,
    demoAccounts: e.DEMO_ACCOUNTS ?? quickStart,
    liveMaxStreams: e.LIVE_MAX_STREAMS ?? defaultMaxStreams(),
    maxConnectionsPerClient:
      e.MAX_CONNECTIONS_PER_CLIENT ?? defaultMaxConnectionsPerClient(e.LIVE_MAX_STREAMS_PER_CLIENT),
    pushSubject: e.PUSH_SUBJECT ?? `mailto:${e.CONTACT_EMAIL}`,
  };
}
