import type { Db } from '../db/client';

/**
 * What raising, refreshing and resolving alerts without a person (device messages, the sweep) needs: the database
 * and the after-commit announcement (`alert-changed` on the bus).
 */
export interface AlertWriter {
  db: Db;
  announce(raceId: number | null, alertId: number): Promise<void>;
}
