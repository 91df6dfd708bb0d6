import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import type { LiveEvent } from '../events/bus';
import type { LiveService } from '../live/service';
import { PushNotifier } from '../push/notifier';
import { webPushSender, type PushSender } from '../push/sender';
import { vapidKeys } from '../push/vapid';
import type { Job } from './runner';

export const PUSH_NOTIFY_JOB = 'push-notify';

export interface PushNotifyJobOptions {
  db: Db;
  live: Pick<LiveService, 'state' | 'publicRaceAt'>;
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>;
  /** The VAPID subject (PUSH_SUBJECT). */
  subject: string;
  /** Pause between passes (PUSH_NOTIFY_SECONDS). */
  everyMs: number;
  /** Tests: another sender, or the clock. */
  sender?: PushSender;
  now?: () => number;
}

/**
 * Web Push to followers (push/notifier.ts): every `everyMs`, and at once after a check-in or a race change (a DNF
 * recorded), one process of the cluster compares the followed runners' live state with what each subscription was
 * sent and sends the news. Not woken by every GPS position (a busy race sends hundreds a second): a GPS passing is
 * told at the next turn.
 */
export class PushNotifyJob implements Job {
  readonly name = PUSH_NOTIFY_JOB;
  readonly everyMs: number;
  readonly notifier: PushNotifier;

  constructor(opts: PushNotifyJobOptions) {
    this.everyMs = opts.everyMs;
    this.notifier = new PushNotifier({
      db: opts.db,
      live: opts.live,
      log: opts.log,
      now: opts.now,
      sender: opts.sender ?? webPushSender(vapidKeys(opts.db), opts.subject),
    });
  }

  async runOnce(signal?: AbortSignal): Promise<void> {
    await this.notifier.runOnce(signal);
  }

  wakeOn(event: LiveEvent): boolean {
    return event.type === 'checkin' || event.type === 'race-updated';
  }
}
