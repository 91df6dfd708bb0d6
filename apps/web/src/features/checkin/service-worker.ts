/**
 * The volunteer page's service worker (`/checkin-sw.js`, scope `/checkin/`): keeps the app shell so the page opens
 * again after a reload with no network. The page tells it which files it runs on (the document, its scripts and
 * styles, /api/config and the page data), since they were loaded before the worker existed. Optional: without
 * service workers (or on plain http off localhost) the page works the same while it stays open.
 */
export function registerCheckinWorker(onShellKept?: (ready: boolean) => void): () => void {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator) || !window.isSecureContext)
    return () => undefined;
  // The worker answers once everything a reload without network needs is in its cache.
  const onMessage = (event: MessageEvent) => {
    const data = event.data as { type?: string; ready?: boolean } | null;
    if (data?.type === 'shell-kept') onShellKept?.(!!data.ready);
  };
  navigator.serviceWorker.addEventListener('message', onMessage);
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
  return () => navigator.serviceWorker.removeEventListener('message', onMessage);
}
