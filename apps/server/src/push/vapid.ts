import webpush from 'web-push';
import type { DbOrTx } from '../db/client';
import { getOrCreateSetting } from '../db/settings';
import type { VapidKeys } from './sender';

/** The server's VAPID key pair (RFC 8292): made once, kept in `settings`, the same for every process. */
export const VAPID_SETTING = 'push.vapid-keys';

export function vapidKeys(db: DbOrTx): () => Promise<VapidKeys> {
  let cached: Promise<VapidKeys> | null = null;
  return () => {
    cached ??= getOrCreateSetting<VapidKeys>(db, VAPID_SETTING, () => webpush.generateVAPIDKeys()).catch(
      (err: unknown) => {
        cached = null; // a database outage: read again next time
        throw err;
      },
    );
    return cached;
  };
}
