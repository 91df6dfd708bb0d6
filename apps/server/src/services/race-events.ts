import type { FastifyInstance } from 'fastify';

/**
 * Tells live viewers that what they see of a race changed (race, runners, course or device assignment).
 * Loosely typed on purpose: the event bus is optional (absent in some test setups), and a failed notification must
 * never fail the request that already committed its change.
 */
export async function notifyRaceChanged(app: FastifyInstance, raceId: number): Promise<void> {
  if (!app.hasDecorator('events')) return;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const bus = (app as any).events as
    { publish(e: { type: 'race-updated'; raceId: number }): unknown } | undefined;
  try {
    await bus?.publish({ type: 'race-updated', raceId });
  } catch (err) {
    app.log.warn({ err, raceId }, 'race-updated notification failed');
  }
}
