import { useSyncExternalStore } from 'react';
import { getInFlight, subscribeInFlight } from '../lib/api-client';
import { t } from '../i18n';

export function useBusy(): boolean {
  return useSyncExternalStore(subscribeInFlight, () => getInFlight() > 0);
}

/**
 * The global overlay: reduced opacity over the whole page, catching every pointer event while any
 * non-background API call runs (the layout also makes the page inert so the keyboard is blocked too).
 */
export function SpinnerOverlay({ busy }: { busy: boolean }) {
  if (!busy) return null;
  return (
    <div className="spinner-overlay" data-testid="spinner-overlay" role="status" aria-live="polite">
      <div className="spinner" aria-hidden="true" />
      <span className="visually-hidden">{t('common.loading')}</span>
    </div>
  );
}
