/**
 * The API's fixed value lists and limits, as plain values with no zod behind them: the browser can import one of
 * these (through `@racebeacon/domain/entities` or `/schemas`, which re-export them) without loading zod into the
 * first screen. The zod schemas that check them are built from these same values.
 */

/** Where a device's positions come from (its wire format), in the order the Devices screen offers them. */
export const DEVICE_SOURCES = [
  'osmand',
  'owntracks',
  'spot',
  'inreach',
  'mapshare',
  'lorawan',
  'meshtastic',
] as const;

/**
 * Upload limits, one place for the server (which refuses a bigger file with 413) and the web app (which checks
 * the file before sending it: a refused upload's connection is closed while the browser is still sending, and
 * the browser then reports a network error instead of the server's message).
 */
/** A course's GPX file. */
export const MAX_GPX_BYTES = 20 * 1024 * 1024;
/** A runner import's CSV file (20,000 runners with long names and contacts fit easily). */
export const MAX_RUNNER_CSV_BYTES = 4 * 1024 * 1024;

/** A runner's gender as the API stores it. */
export const GENDERS = ['M', 'F'] as const;

/** Earliest and latest instant a race may start at (UTC): a sane range that every database and browser handles. */
export const MIN_START_TIME = Date.UTC(2000, 0, 1);
export const MAX_START_TIME = Date.UTC(2101, 0, 1) - 1;

/** Where a runner is in the race, as the live leaderboard reports it. */
export const RUNNER_STATUSES = [
  'not-started',
  'racing',
  'finished',
  'stale',
  'off-course',
  'dnf',
  'dsq',
  'dns',
] as const;

/**
 * A status set by people (the race's director, an admin, an aid station's DNF): did not start, did not finish,
 * disqualified. On the leaderboard it shows as `dns`, `dnf`, `dsq`.
 */
export const MANUAL_RUNNER_STATUSES = ['DNS', 'DNF', 'DSQ'] as const;

/** What an HQ alert is about (`Kind`). `cutoff-risk` is reserved for checkpoints with cutoffs. */
export const ALERT_KINDS = [
  'sos',
  'help',
  'no-movement',
  'lost-signal',
  'low-battery',
  'off-course',
  'cutoff-risk',
] as const;

/** An alert's life: raised `open`, `acknowledged` by a person, `resolved` by a person or by its condition clearing. */
export const ALERT_STATES = ['open', 'acknowledged', 'resolved'] as const;

/** Kinds that resolve themselves when their condition clears; `sos` and `help` stay open until a person resolves them. */
export const SELF_CLEARING_KINDS = ['no-movement', 'lost-signal', 'off-course', 'low-battery'] as const;

/**
 * How often each device source is expected to report, in seconds, unless the device sets its own interval: SPOT
 * 2.5 min, inReach 10 min (MapShare too: the inReach's tracking interval), phones (OsmAnd / Traccar Client, OwnTracks) 1 min, LoRaWAN (TTN, ChirpStack) and
 * Meshtastic 5 min.
 */
export const DEFAULT_EXPECTED_INTERVAL_S: Record<(typeof DEVICE_SOURCES)[number], number> = {
  osmand: 60,
  owntracks: 60,
  spot: 150,
  inreach: 600,
  mapshare: 600,
  lorawan: 300,
  meshtastic: 300,
};

/** Bounds of a race's alert thresholds (inclusive), for the settings form and the schema that checks it. */
export const ALERT_SETTINGS_LIMITS = {
  NoMovementMinutes: { min: 5, max: 720 },
  LostSignalFactor: { min: 1.5, max: 20 },
  LowBatteryPercent: { min: 0, max: 100 },
  OffCourseFixes: { min: 1, max: 20 },
  AidStationRadiusM: { min: 0, max: 2000 },
  HelpKeywordMaxLength: 50,
} as const;

/** A race's alert thresholds when its director has not changed them. */
export const DEFAULT_ALERT_SETTINGS: {
  readonly NoMovementMinutes: number;
  readonly LostSignalFactor: number;
  readonly LowBatteryPercent: number;
  readonly OffCourseFixes: number;
  readonly AidStationRadiusM: number;
  readonly HelpKeyword: string | null;
} = {
  NoMovementMinutes: 30,
  LostSignalFactor: 3,
  LowBatteryPercent: 15,
  OffCourseFixes: 2,
  AidStationRadiusM: 150,
  HelpKeyword: null,
};
