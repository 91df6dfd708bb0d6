/**
 * The API's fixed value lists and limits, as plain values with no zod behind them: the browser can import one of
 * these (through `@racebeacon/domain/entities` or `/schemas`, which re-export them) without loading zod into the
 * first screen. The zod schemas that check them are built from these same values.
 */

/** Where a device's positions come from (its wire format), in the order the Devices screen offers them. */
export const DEVICE_SOURCES = ['osmand', 'owntracks', 'spot', 'inreach', 'lorawan', 'meshtastic'] as const;

/** A runner's gender as the API stores it. */
export const GENDERS = ['M', 'F'] as const;

/** Earliest and latest instant a race may start at (UTC): a sane range that every database and browser handles. */
export const MIN_START_TIME = Date.UTC(2000, 0, 1);
export const MAX_START_TIME = Date.UTC(2101, 0, 1) - 1;

/** Where a runner is in the race, as the live leaderboard reports it. */
export const RUNNER_STATUSES = ['not-started', 'racing', 'finished', 'stale', 'off-course'] as const;
