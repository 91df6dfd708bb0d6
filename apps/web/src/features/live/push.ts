import type { PushKey, PushSubscriptionBody, PushSubscriptionInfo } from '@racebeacon/domain/push';
import { i18n, LANGUAGES, type Language } from '../../i18n';
import { api } from '../../lib/api-client';
import { forgetPushRace, rememberPushRace } from './push-store';

/**
 * "Notify me": Web Push for the runners this browser follows in a race (followed.ts), without an account. The
 * worker `/push-sw.js` (scope `/race/`, apart from the check-in page's `/checkin/` worker; it has no fetch handler,
 * so it never touches page loads) shows what the server sends. Whether this race's notifications are on is kept in
 * localStorage; the subscription's endpoint is what the server knows this browser by. What was sent per race is also
 * kept in IndexedDB (push-store.ts), so the worker can register a subscription the push service rotated
 * (`pushsubscriptionchange`) with the same runners, without a page open.
 */

export const PUSH_WORKER = '/push-sw.js';
export const PUSH_SCOPE = '/race/';
const key = (raceId: number) => `racebeacon.push.${raceId}`;

export type PushProblem = 'unsupported' | 'denied' | 'dismissed' | 'failed';

export class PushError extends Error {
  constructor(
    readonly problem: PushProblem,
    message?: string,
  ) {
    super(message ?? problem);
  }
}

export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    window.isSecureContext &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

export function pushEnabled(raceId: number): boolean {
  try {
    return localStorage.getItem(key(raceId)) === '1';
  } catch {
    return false;
  }
}

function setEnabled(raceId: number, on: boolean) {
  try {
    if (on) localStorage.setItem(key(raceId), '1');
    else localStorage.removeItem(key(raceId));
  } catch {
    // Storage disabled: the subscription still works; the button forgets it on reload.
  }
}

/** applicationServerKey from the base64url VAPID public key. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const reg = await navigator.serviceWorker.register(PUSH_WORKER, { scope: PUSH_SCOPE });
  if (reg.active) return reg;
  const worker = reg.installing ?? reg.waiting;
  if (worker)
    await new Promise<void>((resolve, reject) => {
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') resolve();
        if (worker.state === 'redundant')
          reject(new PushError('failed', 'the notification worker did not start'));
      });
    });
  return reg;
}

async function subscription(): Promise<PushSubscription> {
  const reg = await registration();
  const existing = await reg.pushManager.getSubscription();
  if (existing) return existing;
  const { PublicKey } = await api.get<PushKey>('/open/push/key', { background: true });
  try {
    return await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(PublicKey),
    });
  } catch (err) {
    // No push service reachable (e.g. a browser without its vendor's push service, or a private window).
    throw new PushError('failed', String(err));
  }
}

/** The texts come in the page's language. */
function locale(): Language {
  const lang = i18n.language as Language;
  return LANGUAGES.includes(lang) ? lang : 'en';
}

/** What was last sent per race (endpoint, runners, language), so an unchanged list is not sent again. */
const lastSent = new Map<number, string>();
const sentKey = (endpoint: string, runnerIds: number[]) =>
  `${endpoint} ${[...runnerIds].sort((a, b) => a - b).join(',')} ${locale()}`;

async function send(
  raceId: number,
  runnerIds: number[],
  sub: PushSubscription,
): Promise<PushSubscriptionInfo> {
  lastSent.set(raceId, sentKey(sub.endpoint, runnerIds));
  const json = sub.toJSON();
  const body: PushSubscriptionBody = {
    Subscription: {
      endpoint: sub.endpoint,
      expirationTime: null,
      keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
    },
    RaceId: raceId,
    RunnerIds: runnerIds,
    Locale: locale(),
  };
  const info = await api.post<PushSubscriptionInfo>('/open/push/subscriptions', body, { background: true });
  await rememberPushRace(sub.endpoint, { RaceId: raceId, RunnerIds: runnerIds, Locale: body.Locale ?? 'en' });
  return info;
}

/**
 * Turns notifications on for these runners. Asks the notification permission (call it from the user's click
 * only): a refusal is a PushError 'denied' (blocked for the site) or 'dismissed' (the question was closed).
 */
export async function enablePush(raceId: number, runnerIds: number[]): Promise<void> {
  if (!pushSupported()) throw new PushError('unsupported');
  const permission = await Notification.requestPermission();
  if (permission === 'denied') throw new PushError('denied');
  if (permission !== 'granted') throw new PushError('dismissed');
  await send(raceId, runnerIds, await subscription());
  setEnabled(raceId, true);
}

/**
 * The followed runners changed (followed.ts, on any page of the race) while notifications are on: tell the server
 * (none left: stop, turned off before the first await, so a reader right after sees it).
 */
export async function syncPush(raceId: number, runnerIds: number[]): Promise<void> {
  if (!pushEnabled(raceId) || !pushSupported() || Notification.permission !== 'granted') return;
  if (runnerIds.length === 0) return disablePush(raceId);
  const reg = await navigator.serviceWorker.getRegistration(PUSH_SCOPE);
  const sub = await reg?.pushManager.getSubscription();
  const ids = runnerIds.slice(0, 50);
  if (sub && lastSent.get(raceId) !== sentKey(sub.endpoint, ids)) await send(raceId, ids, sub);
}

export async function disablePush(raceId: number): Promise<void> {
  setEnabled(raceId, false);
  lastSent.delete(raceId);
  if (!pushSupported()) return;
  await forgetPushRace(raceId);
  const reg = await navigator.serviceWorker.getRegistration(PUSH_SCOPE);
  const sub = await reg?.pushManager.getSubscription();
  if (sub)
    await api.del('/open/push/subscriptions', {
      body: { Endpoint: sub.endpoint, RaceId: raceId },
      background: true,
      notFoundAsNull: true,
    });
}
