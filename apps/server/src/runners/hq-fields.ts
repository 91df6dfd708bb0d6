import { runnerBodySchema, runnerSchema } from '@racebeacon/domain';
import { z } from 'zod';

/**
 * Runner fields for race HQ: who to call and the runner's own phone. Accepted on the director's runner bodies and
 * returned by the director's runner reads only — never on /api/open (the public runner is built field by field).
 */
export const MAX_EMERGENCY_CONTACT_LENGTH = 200;
export const MAX_PHONE_LENGTH = 50;

/** Free text without control characters (a NUL byte no text column holds; line breaks have no place in a phone). */
const hqText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f'), {
      error: 'must not contain control characters',
    })
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional();

const hqBodyShape = {
  EmergencyContact: hqText(MAX_EMERGENCY_CONTACT_LENGTH).describe(
    `Emergency contact, name and phone (≤ ${MAX_EMERGENCY_CONTACT_LENGTH}); absent on an edit: unchanged`,
  ),
  Phone: hqText(MAX_PHONE_LENGTH).describe(
    `The runner's phone (≤ ${MAX_PHONE_LENGTH}); absent on an edit: unchanged`,
  ),
};

/** The director's runner body: the domain's, plus the HQ fields (absent: unchanged on an edit, null on a create). */
export const directorRunnerBodySchema = runnerBodySchema.extend(hqBodyShape);
export type DirectorRunnerInput = z.output<typeof directorRunnerBodySchema>;

/** The runner as its director reads it: the domain's Runner plus the HQ fields. */
export const directorRunnerSchema = runnerSchema
  .extend({ EmergencyContact: z.string().nullable(), Phone: z.string().nullable() })
  .meta({ id: 'DirectorRunner' });
export type DirectorRunner = z.infer<typeof directorRunnerSchema>;
