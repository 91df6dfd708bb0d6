import { manualRunnerStatusSchema, runnerSchema } from '@racebeacon/domain';
import { z } from 'zod';

/**
 * Runner fields for race HQ (EmergencyContact, Phone): accepted on the director's runner bodies and returned by the
 * director's runner reads only — never on /api/open (the public runner is built field by field). The body schema is
 * the domain's (the CSV import checks rows with it too).
 */
export {
  directorRunnerBodySchema,
  MAX_EMERGENCY_CONTACT_LENGTH,
  MAX_PHONE_LENGTH,
  type DirectorRunnerInput,
} from '@racebeacon/domain';

/** The runner as its director reads it: the domain's Runner plus the HQ fields. */
export const directorRunnerSchema = runnerSchema
  .extend({
    EmergencyContact: z.string().nullable(),
    Phone: z.string().nullable(),
    /** DNS / DNF / DSQ set by people (PUT …/runners/{runnerId}/status), and why. */
    Status: manualRunnerStatusSchema.nullable().optional(),
    StatusReason: z.string().nullable().optional(),
  })
  .meta({ id: 'DirectorRunner' });
export type DirectorRunner = z.infer<typeof directorRunnerSchema>;
