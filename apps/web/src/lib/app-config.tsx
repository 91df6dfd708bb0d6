import { createContext, useContext } from 'react';
import type { AuthSettings, PublicConfig } from '@racebeacon/domain/entities';
import { api } from './api-client';

/**
 * GET /api/config: what the browser needs to know about this deployment. The sign-in settings are passed through to
 * the auth layer as they came, which checks them (the fallback used when the server cannot be reached has none).
 */
export type AppConfig = Omit<PublicConfig, 'auth'> & { auth: Partial<AuthSettings> };

const FALLBACK: AppConfig = {
  productName: 'RaceBeacon',
  contactEmail: 'contact@racebeacon.example',
  auth: {},
  map: { tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', tileAttribution: '' },
};

/**
 * Read once at startup, before any route renders: product name and contact email are configuration, not code.
 * A failure does not block the app: the defaults match the server's own defaults. A background call, so the
 * spinner overlay (not rendered yet anyway) is not involved, and no token is sent (none exists before this).
 */
export async function fetchAppConfig(): Promise<AppConfig> {
  try {
    const data = await api.get<Partial<AppConfig> | null>('/config', { background: true });
    return { ...FALLBACK, ...data, map: { ...FALLBACK.map, ...data?.map } };
  } catch (err) {
    console.warn('Could not load /api/config, using defaults:', err);
    return FALLBACK;
  }
}

export const AppConfigContext = createContext<AppConfig>(FALLBACK);
export const useAppConfig = (): AppConfig => useContext(AppConfigContext);
