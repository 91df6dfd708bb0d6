/* global self */
/*
 * RaceBeacon's notification worker (scope /race/): shows what the server pushes about followed runners (checkpoint
 * passed, finished, DNF, no news for an hour) and opens the runner's page on a click. No fetch handler: it never
 * touches page loads (the check-in page has its own worker, /checkin-sw.js, scope /checkin/).
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
