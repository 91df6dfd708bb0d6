import type { Config } from './config';
import type { Database, Db } from './db/client';

/** The signed-in caller, derived from a verified access token. */
export interface AuthUser {
  /** `oid` claim, falling back to `sub`. Compared with Race.DirectorId. */
  id: string;
  isAdmin: boolean;
  name?: string;
  email?: string;
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    db: Db;
  }
  interface FastifyRequest {
    /** null for anonymous requests (no Authorization header). An invalid token never gets here: it is a 401. */
    user: AuthUser | null;
  }
}
