import { randomInt } from 'node:crypto';
import { CLAIM_CODE_SOURCES } from '@racebeacon/domain';
import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { isUniqueViolation } from '../db/errors';
import { devices } from '../db/schema';
import { conflict, notFound } from '../lib/errors';
import type { DeviceRef } from '../ingest/types';

/**
 * Proof of possession of a runner's own tracker attached by hardware id (docs/decisions/own-tracker-proof.md).
 * Until proven, the claimed id waits in devices.claim_hardware_id and devices.hardware_id stays null, so ingestion
 * finds no device for that id: nothing is stored, attributed or shown, and the claim never occupies the id (an
 * admin registering the real device is never refused because of it). Proof: an admin approves, or the device
 * itself sends the claim code shown to the director in a text message (inReach, Meshtastic).
 */

/** No 0/O, 1/I/L: read off a screen and typed on a device's keypad. */
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const CODE_LENGTH = 6;

/** `RB` and 6 characters (31^6 ≈ 8.9e8): unique enough to tell one claim of a device from another. */
export function newClaimCode(): string {
  let code = 'RB';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

const CODE_RE = /\bRB[\s-]?([2-9A-HJ-NP-Z]{6})\b/gi;

/** The claim codes a text carries (upper case, without a separator), at most 5. */
export function claimCodesIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.slice(0, 2000).matchAll(CODE_RE)) {
    out.add(`RB${m[1].toUpperCase()}`);
    if (out.size >= 5) break;
  }
  return [...out];
}

export type ConfirmOutcome = { ok: true; raceId: number | null } | { ok: false; reason: 'taken' };

/**
 * Makes a pending claim's id the device's hardware id. Another device already holding that id (the fleet's, or a
 * claim proven first) wins: the claim stays pending. `null` when the device has no pending claim.
 */
export async function confirmClaim(db: Db, deviceId: number): Promise<ConfirmOutcome | null> {
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx.select().from(devices).where(eq(devices.id, deviceId)).for('update');
      if (!row?.claimHardwareId) return null;
      if (await heldByAnother(tx, deviceId, row.source, row.claimHardwareId))
        return { ok: false, reason: 'taken' };
      await tx
        .update(devices)
        .set({ hardwareId: row.claimHardwareId, claimHardwareId: null, claimCode: null })
        .where(eq(devices.id, deviceId));
      return { ok: true, raceId: row.raceId };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return { ok: false, reason: 'taken' };
    throw err;
  }
}

/** Matching is case-insensitive, as ingestion's. */
async function heldByAnother(db: DbOrTx, deviceId: number, source: string, hardwareId: string) {
  const [other] = await db
    .select({ id: devices.id })
    .from(devices)
    .where(
      and(
        eq(devices.source, source),
        sql`lower(${devices.hardwareId}) = ${hardwareId.trim().toLowerCase()}`,
        ne(devices.id, deviceId),
      ),
    )
    .limit(1);
  return !!other;
}

/** The admin's approval: 404 unknown device, 409 no_pending_claim, 409 duplicate_hardware_id. */
export async function approveClaim(db: Db, deviceId: number): Promise<number | null> {
  const out = await confirmClaim(db, deviceId);
  if (out === null) {
    const [row] = await db.select({ id: devices.id }).from(devices).where(eq(devices.id, deviceId));
    if (!row) throw notFound(`Device ${deviceId} was not found.`);
    throw conflict('This device has no claim waiting for approval.', 'no_pending_claim');
  }
  if (!out.ok)
    throw conflict(
      'Another device already has this source and hardware id: the claim stays pending.',
      'duplicate_hardware_id',
    );
  return out.raceId;
}

/**
 * A text message from a device (inReach free text, Meshtastic text): every pending claim of that source and id
 * whose code it carries is proven. Returns the races whose trackers changed (empty: the text proved nothing).
 */
export async function proveByText(db: Db, device: DeviceRef, text: string): Promise<number[]> {
  if (!('hardwareIds' in device) || !CLAIM_CODE_SOURCES.includes(device.source)) return [];
  const codes = claimCodesIn(text);
  if (!codes.length) return [];
  const hw = device.hardwareIds.map((h) => h.trim().toLowerCase()).filter(Boolean);
  if (!hw.length) return [];
  const claims = await db
    .select({ id: devices.id })
    .from(devices)
    .where(
      and(
        eq(devices.source, device.source),
        isNotNull(devices.claimCode),
        sql`${devices.claimCode} IN (${sql.join(
          codes.map((c) => sql`${c}`),
          sql`, `,
        )})`,
        sql`lower(${devices.claimHardwareId}) IN (${sql.join(
          hw.map((h) => sql`${h}`),
          sql`, `,
        )})`,
      ),
    );
  const races: number[] = [];
  for (const c of claims) {
    const out = await confirmClaim(db, c.id);
    if (out?.ok && out.raceId !== null) races.push(out.raceId);
  }
  return races;
}
