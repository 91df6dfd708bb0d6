import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/client';
import { oidcPayloads } from '../db/schema';

/**
 * oidc-provider's storage on the application database (table oidc_payloads): sessions, grants, codes, refresh
 * tokens and interactions survive a restart and are shared by every server process on the same database.
 * One row per (id, model name); expired rows are invisible to `find` and swept now and then.
 */
export function createAdapterClass(db: Db) {
  let lastSweep = 0;
  const SWEEP_EVERY_MS = 10 * 60 * 1000;

  async function sweepExpired(): Promise<void> {
    const now = Date.now();
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    await db.delete(oidcPayloads).where(lt(oidcPayloads.expiresAt, new Date(now)));
  }

  const notExpired = () => or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, new Date()));

  function toPayload(row: { payload: unknown; consumedAt: Date | null }): AdapterPayload {
    const payload = row.payload as AdapterPayload;
    // oidc-provider reads `consumed` (seconds) to detect a reused code or refresh token.
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }

  return class DrizzleAdapter implements Adapter {
    constructor(private readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      const values = {
        id,
        type: this.name,
        payload,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt,
      };
      await db
        .insert(oidcPayloads)
        .values(values)
        .onConflictDoUpdate({
          target: [oidcPayloads.id, oidcPayloads.type],
          set: { ...values, consumedAt: null },
        });
      await sweepExpired();
    }

    private async findWhere(where: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
      const [row] = await db
        .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.type, this.name), where, notExpired()))
        .limit(1);
      return row ? toPayload(row) : undefined;
    }

    find(id: string) {
      return this.findWhere(eq(oidcPayloads.id, id));
    }

    findByUid(uid: string) {
      return this.findWhere(eq(oidcPayloads.uid, uid));
    }

    findByUserCode(userCode: string) {
      return this.findWhere(eq(oidcPayloads.userCode, userCode));
    }

    async consume(id: string): Promise<void> {
      await db
        .update(oidcPayloads)
        .set({ consumedAt: new Date() })
        .where(and(eq(oidcPayloads.id, id), eq(oidcPayloads.type, this.name)));
    }

    async destroy(id: string): Promise<void> {
      await db.delete(oidcPayloads).where(and(eq(oidcPayloads.id, id), eq(oidcPayloads.type, this.name)));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // A grant's tokens live under several model names; revoking the grant removes all of them.
      await db.delete(oidcPayloads).where(eq(oidcPayloads.grantId, grantId));
    }
  };
}
