import type { RaceBody } from '@racebeacon/domain/schemas';
import { fromLocalInput } from '../../lib/format';
import type { RaceFieldValues } from './race-fields';

/**
 * The race schema the API validates a race body with, and its wording of a refusal. Loaded on first use (the form
 * asks for it when it opens), so zod stays out of the first screen's JavaScript.
 */
export const loadRaceSchema = () => import('@racebeacon/domain/schemas');

/**
 * The request body of the race form, checked with the same schema the API applies to it (raceBodySchema): either
 * the body to send, or the reason it would be refused, in the words the API would use. If the schema cannot be
 * loaded (connection lost), the body goes out unchecked and the server's answer says what is wrong.
 */
export async function checkedRaceBody(
  values: RaceFieldValues,
): Promise<{ body: RaceBody; error?: undefined } | { body?: undefined; error: string }> {
  const body: RaceBody = {
    Name: values.Name.trim(),
    Description: values.Description,
    Location: values.Location,
    StartTime: fromLocalInput(values.StartTime),
  };
  // Privacy settings, when the form has them (the race editor); a number field left empty is a 400 for the delay
  // (it must be a number) and "keep" for the retention.
  if (values.PublicDelayMin !== undefined)
    body.PublicDelayMin = values.PublicDelayMin.trim() === '' ? NaN : Number(values.PublicDelayMin);
  if (values.TrailsPublic !== undefined) body.TrailsPublic = values.TrailsPublic;
  if (values.RetentionDays !== undefined)
    body.RetentionDays = values.RetentionDays.trim() === '' ? null : Number(values.RetentionDays);
  const schemas = await loadRaceSchema().catch(() => null);
  if (!schemas) return { body };
  const checked = schemas.raceBodySchema.safeParse(body);
  return checked.success
    ? { body: checked.data }
    : { error: schemas.validationMessage(checked.error.issues) };
}
