/* global self */
/*
 * RaceBeacon's notification worker (scope /race/): shows what the server pushes about followed runners (checkpoint
 * passed, finished, DNF, no news for an hour) and opens the runner's page on a click. No fetch handler: it never
 * touches page loads (the check-in page has its own worker, /checkin-sw.js, scope /checkin/). When the push service
 * rotates the subscription (`pushsubscriptionchange`), it subscribes again with the same applicationServerKey,
 * registers the new subscription with the server for the same races and runners (kept in IndexedDB by the page,
 * src/features/live/push-store.ts), then deletes the old endpoint.
 */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof data.title === 'string' && data.title ? data.title : 'RaceBeacon';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof data.body === 'string' ? data.body : '',
      tag: typeof data.tag === 'string' ? data.tag : undefined,
      data: { url: typeof data.url === 'string' ? data.url : '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  // Only pages of this site.
  const url = new URL(event.notification.data?.url ?? '/', self.location.origin);
  const href = url.origin === self.location.origin ? url.href : self.location.origin + '/';
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      for (const w of windows) if (w.url === href && 'focus' in w) return w.focus();
      return self.clients.openWindow(href);
    }),
  );
});

// ---------------------------------------------------------------- a rotated subscription

// The page's record of what the server was sent (src/features/live/push-store.ts: keep in step).
const PUSH_DB = 'racebeacon-push';
const PUSH_STORE = 'kv';
const ENDPOINT_KEY = 'endpoint';

function openDb() {
  return new Promise((resolve, reject) => {
    const req = self.indexedDB.open(PUSH_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(PUSH_STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Runs `work` on the store; resolves with what its last request returned once the transaction is done. */
function inStore(db, mode, work) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(PUSH_STORE, mode);
    const req = work(tx.objectStore(PUSH_STORE));
    tx.oncomplete = () => resolve(req ? req.result : undefined);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

function keyBytes(base64url) {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

async function renewSubscription(oldSubscription, newSubscription) {
  const db = await openDb();
  try {
    const storedEndpoint = await inStore(db, 'readonly', (s) => s.get(ENDPOINT_KEY));
    const oldEndpoint = (oldSubscription && oldSubscription.endpoint) || storedEndpoint || null;
    let sub = newSubscription;
    if (!sub) {
      // The same applicationServerKey: the old subscription's, or the server's VAPID key (made once, never changes).
      let key = oldSubscription && oldSubscription.options && oldSubscription.options.applicationServerKey;
      if (!key) {
        const res = await fetch('/api/open/push/key', { headers: { accept: 'application/json' } });
        if (!res.ok) throw new Error(`GET /api/open/push/key: ${res.status}`);
        key = keyBytes((await res.json()).PublicKey);
      }
      sub = await self.registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key,
      });
    }
    const { keys } = sub.toJSON();
    const races = await inStore(db, 'readonly', (s) =>
      s.getAll(self.IDBKeyRange.bound('race:', 'race:\uffff')),
    );
    for (const race of races) {
      const res = await fetch('/api/open/push/subscriptions', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({
          Subscription: {
            endpoint: sub.endpoint,
            expirationTime: null,
            keys: { p256dh: keys.p256dh, auth: keys.auth },
          },
          RaceId: race.RaceId,
          RunnerIds: race.RunnerIds,
          Locale: race.Locale,
        }),
      });
      // The race is no longer public: nothing to follow there any more (other refusals keep the record).
      if (res.status === 404) await inStore(db, 'readwrite', (s) => s.delete(`race:${race.RaceId}`));
    }
    await inStore(db, 'readwrite', (s) => s.put(sub.endpoint, ENDPOINT_KEY));
    // Registered anew first, then the old endpoint deleted (every race of it): no message is lost in between.
    if (oldEndpoint && oldEndpoint !== sub.endpoint)
      await fetch('/api/open/push/subscriptions', {
        method: 'DELETE',
        headers: JSON_HEADERS,
        body: JSON.stringify({ Endpoint: oldEndpoint }),
      });
  } finally {
    db.close();
  }
}

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(renewSubscription(event.oldSubscription || null, event.newSubscription || null));
});
