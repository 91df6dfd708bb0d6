/**
 * The HQ's wire shapes, from the domain package (the API contract): types only, so no schema code is bundled.
 * The value lists come from the zod-free constants.
 */
export type { Alert, AlertLogEntry, AlertSettings, AlertSettingsBody } from '@racebeacon/domain/alerts';
export { ALERT_KINDS, ALERT_SETTINGS_LIMITS, ALERT_STATES } from '@racebeacon/domain/constants';
import type { ALERT_KINDS, ALERT_STATES } from '@racebeacon/domain/constants';

export type AlertKind = (typeof ALERT_KINDS)[number];
export type AlertState = (typeof ALERT_STATES)[number];
