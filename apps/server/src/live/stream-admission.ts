import type { FastifyReply } from 'fastify';
import { HttpError } from '../lib/errors';
import { clientKey } from '../lib/client-key';
import type { SseHub, StreamSlot } from './sse-hub';

/** Retry-After of a stream refused because its client holds too many: it has to close one first. */
export const STREAM_CLIENT_RETRY_AFTER_S = 30;
/** Retry-After of a stream refused because the process is full: 15–30 s, spread so refused viewers do not return together. */
const streamFullRetryAfterS = () => 15 + Math.floor(Math.random() * 16);

/** A live stream refused by a cap (429 per client, 503 in total), answered with Retry-After before any SSE byte. */
export class StreamLimitError extends HttpError {
  constructor(
    readonly limit: 'client' | 'total',
    readonly retryAfterS: number,
    max: number,
  ) {
    super(
      limit === 'client' ? 429 : 503,
      limit === 'client' ? 'too_many_streams' : 'streams_full',
      limit === 'client'
        ? `This address already has ${max} live streams open, the most allowed. Close one, or try again later.`
        : 'This server is serving as many live streams as it can. Try again shortly; the leaderboard ' +
            '(GET /api/open/races/{id}/leaderboard) still answers meanwhile.',
    );
  }
}

export interface StreamAdmissionOptions {
  /** Most SSE streams open at once in this process (LIVE_MAX_STREAMS; default unlimited). */
  maxStreams?: number;
  /** Most SSE streams open at once per client address (LIVE_MAX_STREAMS_PER_CLIENT; 0 or default: no cap). */
  maxStreamsPerClient?: number;
  log?: { warn(obj: unknown, msg?: string): void };
  now: () => number;
}

/**
 * Who may open one more live stream: the hub counts the slots, this turns a refusal into the StreamLimitError the
 * route answers with, and reports a full process in the log at most once a minute.
 */
export class StreamAdmission {
  /** When the total stream cap was last reported in the log. */
  private fullLoggedAt = -Infinity;

  constructor(
    private readonly hub: SseHub,
    private readonly opts: StreamAdmissionOptions,
  ) {}

  /** A slot for one more stream of the client at `clientIp`, or a StreamLimitError. */
  admit(clientIp: string): StreamSlot {
    const admission = this.hub.admit(clientKey(clientIp));
    if (admission.ok) return admission.slot;
    if (admission.limit === 'client') {
      throw new StreamLimitError('client', STREAM_CLIENT_RETRY_AFTER_S, this.opts.maxStreamsPerClient ?? 0);
    }
    const now = this.opts.now();
    if (now - this.fullLoggedAt >= 60_000) {
      this.fullLoggedAt = now;
      this.opts.log?.warn(
        { streams: this.hub.streamCount(), maxStreams: this.opts.maxStreams },
        'live stream cap reached; refusing new streams with 503 (LIVE_MAX_STREAMS)',
      );
    }
    throw new StreamLimitError('total', streamFullRetryAfterS(), this.opts.maxStreams ?? Infinity);
  }
}

/**
 * Answers a refused stream: 429/503 with Retry-After and {error, message}, and `Connection: close`, so the refused
 * client's connection is closed after the answer instead of kept alive holding a descriptor.
 */
export function sendStreamRefusal(reply: FastifyReply, err: StreamLimitError): FastifyReply {
  return reply
    .code(err.statusCode)
    .header('retry-after', String(err.retryAfterS))
    .header('cache-control', 'no-store')
    .header('connection', 'close')
    .send({ error: err.code, message: err.message });
}
