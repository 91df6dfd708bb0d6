/**
 * The volunteer page's service worker (`/checkin-sw.js`, scope `/checkin/`): keeps the app shell so the page opens
 * again after a reload with no network. The page tells it which files it runs on (the document, its scripts and
 * styles, /api/config and the page data), since they were loaded before the worker existed. Optional: without
 * service workers (or on plain http off localhost) the page works the same while it stays open.
 */
export function registerCheckinWorker(): void {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator) || !window.isSecureContext) return;
  void navigator.serviceWorker
    .register('/checkin-sw.js', { scope: '/checkin/' })
    .then(() => navigator.serviceWorker.ready)
    .then((reg) => {
      const assets = performance
        .getEntriesByType('resource')
        .map((e) => new URL(e.name))
        .filter((u) => u.origin === location.origin && u.pathname.startsWith('/assets/'))
        .map((u) => u.pathname);
      reg.active?.postMessage({
        type: 'keep-shell',
        page: location.pathname,
        urls: [...new Set(['/api/config', ...assets])],
      });
    })
    .catch((err: unknown) => console.warn('Check-in page: no offline shell', err));
}
