import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A stream route's `onSend`: any answer but the stream (401/403/404, 429, 503 database_unavailable with Retry-After —
 * all before the stream opens) closes the connection, so a client retrying a refused stream holds no idle connection.
 * A hook, not a try/catch in the handler, because some refusals (a bad token) come from earlier hooks.
 */
export async function closeRefusedStream(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode >= 400) void reply.header('connection', 'close');
  return payload;
}
