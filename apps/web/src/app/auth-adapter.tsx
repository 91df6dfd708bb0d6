/**
 * The auth layer's contract as this app uses it. Until apps/web/src/auth (helper H2) lands this is a signed-out
 * stand-in with the same shape; switching is one line: `export * from '../auth';`.
 */
import { createContext, useContext, type ReactNode } from 'react';
import type { Race } from '@racebeacon/domain';

export interface Account {
  id: string;
  name?: string;
  email?: string;
  groups: string[];
}

export interface AuthState {
  status: 'none' | 'active' | 'interaction';
  account: Account | null;
  isAdmin: boolean;
  login(): void | Promise<void>;
  signup(): void | Promise<void>;
  logout(): void | Promise<void>;
  getAccessToken(): Promise<string | null>;
}

const signedOut: AuthState = {
  status: 'none',
  account: null,
  isAdmin: false,
  login: () => undefined,
  signup: () => undefined,
  logout: () => undefined,
  getAccessToken: async () => null,
};

const AuthContext = createContext<AuthState>(signedOut);

export function AuthProvider({ children }: { config?: unknown; children: ReactNode }) {
  return <AuthContext.Provider value={signedOut}>{children}</AuthContext.Provider>;
}

export const useAuth = (): AuthState => useContext(AuthContext);

export const getAccessToken = async (): Promise<string | null> => null;

/** Ownership: the account's object id equals the race's DirectorId (seed-spec section 6). */
export function isOwner(account: Account | null, race: Pick<Race, 'DirectorId'> | null): boolean {
  return !!account && !!race && account.id === race.DirectorId;
}
