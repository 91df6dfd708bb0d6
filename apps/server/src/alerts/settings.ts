import { alertSettingsSchema, type AlertSettings } from '@racebeacon/domain';

/** The race's thresholds: its own, over the defaults (a stored value that no longer validates is ignored). */
export function settingsOf(stored: Record<string, unknown> | null | undefined): AlertSettings {
  const parsed = alertSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : alertSettingsSchema.parse({});
}
