import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../db/client';
import { getOrCreateSetting } from '../db/settings';
import { requireUser } from '../identity/auth-plugin';
import { HttpError, notFound } from '../lib/errors';
import { raceIdParams } from '../lib/http-schemas';
import { PublicView, type Viewer } from '../privacy/public-view';
import { findRace } from '../races/repository';
import type { AuthUser } from '../types';
import type { LiveService } from './service';

/**
 * Stream tickets: how the race's director (or an admin) opens the live stream of a race whose public view is not its
 * live state (a public delay, hidden runners, private trails) with EventSource, which cannot send a bearer token.
 *
 * `POST /api/director/races/{raceId}/live-ticket` (bearer token; the race's director or an admin, 404 for anyone
 * else) answers `{ Ticket, ExpiresAt }`; `GET /api/open/races/{raceId}/live?ticket=…` then serves that viewer the
 * live stream (undelayed, unmasked). The ticket is `payload.signature`: the payload names the race, the user, whether
 * they are an admin and the expiry; the signature is an HMAC-SHA256 with a key made once and kept in `settings`
 * (like the VAPID keys), so any process of a cluster accepts a ticket another one issued. A ticket is good for one
 * race, `STREAM_TICKET_TTL_MS` (60 s) and ONE stream: the first stream it opens marks it used in the database (so
 * on every process), a stream opened with it lives on, and any later use is refused (401 `ticket_used`, or
 * `ticket_expired`; never a silent fallback to the public view). EventSource's own reconnect re-uses the URL, so it
 * is refused too: the web client then asks for a fresh ticket and opens a new stream, resuming from its last event
 * id (apps/web/src/features/live/use-live-race.ts) — one extra request per reconnect, and a ticket seen in a log,
 * a proxy or a browser history opens nothing. Tickets travel in
 * the URL, so the request log prints them redacted (`logRequest`, app.ts's `req` serializer).
 */

export const STREAM_TICKET_SETTING = 'live.stream-ticket-key';
/** How long a ticket can open a stream. */
export const STREAM_TICKET_TTL_MS = 60_000;
/** Longest ticket accepted in the query (a real one is about 150 characters). */
export const STREAM_TICKET_MAX_LENGTH = 1000;

interface TicketPayload {
  /** race id */
  r: number;
  /** user id */
  u: string;
  /** admin when issued */
  a: boolean;
  /** expiry, ms since the epoch */
  e: number;
}

const payloadSchema = z.object({
  r: z.number().int().positive(),
  u: z.string().min(1),
  a: z.boolean(),
  e: z.number().int(),
});

const invalid = (message: string) => new HttpError(401, 'invalid_ticket', message);

export class StreamTickets {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly db: DbOrTx,
    private readonly now: () => number = Date.now,
  ) {}

  /** The signing key, made once for the whole cluster and read once per process. */
  private signingKey(): Promise<Buffer> {
    this.key ??= getOrCreateSetting<string>(this.db, STREAM_TICKET_SETTING, () =>
      randomBytes(32).toString('base64url'),
    ).then(
      (k) => Buffer.from(k, 'base64url'),
      (err: unknown) => {
        this.key = null; // a database outage: read again next time
        throw err;
      },
    );
    return this.key;
  }

  /**
   * Marks a ticket used, for every process of a cluster: true the first time. A used ticket is a row of the
   * database's expiring keys (`sign_in_buckets`, swept once expired: the sign-in limits' table, which holds any
   * short-lived key with an expiry) named by the ticket's signature, kept until the ticket's own expiry.
   */
  private async spend(signature: string, expiresAtMs: number): Promise<boolean> {
    const res = (await this.db.execute(sql`
      INSERT INTO sign_in_buckets (key, tokens, at, expires_at)
      VALUES (${`live-ticket:${signature}`}, 0, now(), ${new Date(expiresAtMs).toISOString()}::timestamptz)
      ON CONFLICT (key) DO NOTHING
      RETURNING key`)) as unknown as { rows: unknown[] };
    return res.rows.length > 0;
  }

  async issue(user: Viewer, raceId: number): Promise<{ Ticket: string; ExpiresAt: string }> {
    const payload: TicketPayload = {
      r: raceId,
      u: user.id,
      a: user.isAdmin,
      e: this.now() + STREAM_TICKET_TTL_MS,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const Ticket = `${body}.${sign(await this.signingKey(), body)}`;
    return { Ticket, ExpiresAt: new Date(payload.e).toISOString() };
  }

  /** The viewer a ticket was issued to, for `raceId`; a 401 `invalid_ticket` / `ticket_expired` otherwise. */
  async verify(ticket: string, raceId: number): Promise<Viewer> {
    const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(ticket);
    if (!m) throw invalid('The stream ticket is not valid.');
    const expected = Buffer.from(sign(await this.signingKey(), m[1]));
    const given = Buffer.from(m[2]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw invalid('The stream ticket is not valid.');
    let payload: TicketPayload;
    try {
      payload = payloadSchema.parse(JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')));
    } catch {
      throw invalid('The stream ticket is not valid.');
    }
    if (payload.r !== raceId) throw invalid(`The stream ticket is not for race ${raceId}.`);
    if (payload.e <= this.now())
      throw new HttpError(
        401,
        'ticket_expired',
        'The stream ticket has expired: ask for a new one (POST /api/director/races/{raceId}/live-ticket).',
      );
    if (!(await this.spend(m[2], payload.e)))
      throw new HttpError(
        401,
        'ticket_used',
        'The stream ticket has already opened a stream: ask for a new one (POST /api/director/races/{raceId}/live-ticket).',
      );
    return { id: payload.u, isAdmin: payload.a };
  }
}

function sign(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(`racebeacon-live-ticket\n${body}`).digest('base64url');
}

/**
 * Whether a stream request reads the race live: false without a ticket; true with a valid one whose holder still
 * manages the race; a 401 otherwise (checked before the stream takes a slot).
 */
export async function streamReadsLive(
  tickets: StreamTickets,
  live: LiveService,
  raceId: number,
  ticket: string | undefined,
): Promise<boolean> {
  if (ticket === undefined) return false;
  const viewer = await tickets.verify(ticket, raceId);
  if (!PublicView.manages(viewer, await live.state(raceId)))
    throw invalid('The stream ticket’s holder no longer manages this race.');
  return true;
}

/** A URL as it may be logged: a `ticket` query parameter's value replaced (tickets are never logged). */
export function withoutTicket(url: string): string {
  return url.replace(/([?&]ticket=)[^&#]*/gi, '$1[redacted]');
}

/** Fastify's request serializer for the log, with the URL through `withoutTicket`. */
export function logRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: withoutTicket(req.url),
    version: [req.headers['accept-version']].flat()[0],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

const ticketSchema = z.object({
  Ticket: z.string(),
  ExpiresAt: z.iso.datetime(),
});

/** `POST /api/director/races/{raceId}/live-ticket`: the race's director or an admin (404 for anyone else). */
export const streamTicketRoutes: FastifyPluginAsyncZod<{ tickets: StreamTickets }> = async (
  app,
  { tickets },
) => {
  app.post(
    '/api/director/races/:raceId/live-ticket',
    {
      schema: {
        tags: ['director'],
        security: [{ bearerAuth: [] }],
        summary:
          'A short-lived ticket to open the race’s live stream live (undelayed, unmasked) with EventSource',
        description:
          'For the race’s director and admins (anyone else: 404). The ticket opens ' +
          '`GET /api/open/races/{raceId}/live?ticket=…` for 60 seconds (ExpiresAt), for this race only; the stream ' +
          'then lives on. An invalid, expired or other race’s ticket is refused with 401 {error, message}; a ' +
          'client reconnecting after the expiry asks for a new ticket. Works on any process of a cluster.',
        params: raceIdParams,
        response: { 200: ticketSchema },
      },
    },
    async (request) => {
      const user: AuthUser = requireUser(request);
      const { raceId } = request.params;
      const race = await findRace(app.db, raceId);
      if (!race || (race.directorId !== user.id && !user.isAdmin))
        throw notFound(`Race ${raceId} was not found.`);
      return tickets.issue(user, raceId);
    },
  );
};
