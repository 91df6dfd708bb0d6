/* global self, caches */
/* The volunteer check-in page's service worker (scope /checkin/): the app shell for a reload with no network.
 * - The document (any /checkin/{token}): network first, else the last one kept (one shell for every token).
 * - /assets/* (hashed, never change): from the cache first, kept on first fetch.
 * - GET /api/config and GET /api/checkin/*: network first, else the last answer kept.
 * Check-in posts are never touched: the page's own outbox (IndexedDB) sends them, each once. */
const CACHE = 'racebeacon-checkin-v1';
const SHELL = '/checkin/__shell__';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys.filter((k) => k.startsWith('racebeacon-checkin-') && k !== CACHE).map((k) => caches.delete(k)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

/** The page lists what it was loaded with (before this worker existed). */
self.addEventListener('message', (event) => {
  const data = event.data;
  if (!data || data.type !== 'keep-shell') return;
  const source = event.source;
  event.waitUntil(
    caches.open(CACHE).then(async (cache) => {
      const page = await fetch(data.page, { cache: 'no-cache' }).catch(() => null);
      if (page && page.ok) await cache.put(SHELL, page);
      const kept = await Promise.all(
        (data.urls || []).map((u) =>
          cache.match(u).then(
            (hit) =>
              !!hit ||
              fetch(u)
                .then((res) => (res.ok ? cache.put(u, res).then(() => true) : false))
                .catch(() => false),
          ),
        ),
      );
      // Tell the page whether everything a reload without network needs is kept (it shows "Ready offline").
      const ready = !!(await cache.match(SHELL)) && kept.every(Boolean);
      if (source) source.postMessage({ type: 'shell-kept', ready });
    }),
  );
});

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(request);
    if (res.ok) await cache.put(key, res.clone());
    return res;
  } catch (err) {
    const hit = await cache.match(key);
    if (hit) return hit;
    throw err;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request.url);
  if (hit) return hit;
  const res = await fetch(request);
  if (res.ok) await cache.put(request.url, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request, SHELL));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(cacheFirst(request));
  } else if (url.pathname === '/api/config' || url.pathname.startsWith('/api/checkin/')) {
    event.respondWith(networkFirst(request, url.pathname));
  }
});
