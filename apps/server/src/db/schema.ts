import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * The whole schema. Migrations are generated from this file (`npm run db:generate`) and committed under
 * apps/server/drizzle; they are applied at start, the same way on PGlite and PostgreSQL.
 */

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const races = pgTable(
  'races',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    location: text('location').notNull().default(''),
    startTime: tz('start_time'),
    hasStarted: boolean('has_started').notNull().default(false),
    hasFinished: boolean('has_finished').notNull().default(false),
    approved: boolean('approved').notNull().default(false),
    directorId: text('director_id').notNull(),
    /** The race clock: when timing began (StartTime if already past when started, else the press of Start). */
    clockStartedAt: tz('clock_started_at'),
    /** When End Race was pressed. */
    clockStoppedAt: tz('clock_stopped_at'),
    /** The race's alert thresholds (the domain's AlertSettings); null: the defaults. */
    alertSettings: jsonb('alert_settings').$type<Record<string, unknown>>(),
    /** Privacy: positions and leaderboard shown to the public this many minutes late (0: live). */
    publicDelayMin: integer('public_delay_min').notNull().default(0),
    /** Privacy: whether runners' trails are public. */
    trailsPublic: boolean('trails_public').notNull().default(true),
    /** Retention: fixes deleted this many days after the race's end; null: kept. */
    retentionDays: integer('retention_days'),
    /**
     * Retention: when the retention job deleted the race's fixes, and the results it kept first (the final leaderboard
     * rows without positions, and the splits), which the live race shows from then on.
     */
    fixesDeletedAt: tz('fixes_deleted_at'),
    finalResults: jsonb('final_results').$type<{ Rows: unknown[]; Splits: unknown[] }>(),
    createdAt: tz('created_at').notNull().defaultNow(),
    updatedAt: tz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('races_director_idx').on(t.directorId), index('races_approved_idx').on(t.approved)],
);

export const runners = pgTable(
  'runners',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    bibNumber: text('bib_number'),
    gender: text('gender').notNull().default('M'),
    age: integer('age'),
    /** For race HQ only (never public): who to call, name and phone. */
    emergencyContact: text('emergency_contact'),
    /** For race HQ only (never public): the runner's own phone. */
    phone: text('phone'),
    /** Set by people (director, admin, an aid station's DNF): 'DNS' | 'DNF' | 'DSQ'; null: none. */
    status: text('status'),
    statusReason: text('status_reason'),
    statusAt: tz('status_at'),
    statusBy: text('status_by'),
    /** A DNF keeps the distance reached when it was recorded (metres along the course). */
    statusDistanceM: doublePrecision('status_distance_m'),
    /** Privacy: the runner stays on the leaderboard by progress, with no dot on the public map. */
    hidePosition: boolean('hide_position').notNull().default(false),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('runners_race_idx').on(t.raceId),
    uniqueIndex('runners_race_bib_uq').on(t.raceId, t.bibNumber),
  ],
);

/** Course geometry as parsed from GPX: [lon, lat, ele|null] points, and waypoints. */
export interface CourseGeometry {
  points: [number, number, number | null][];
  /**
   * distanceM: along the course to the waypoint's first pass, null when it is off the course (set at upload);
   * passesM: every pass (an aid station on a lap or out-and-back course is reached more than once), when known.
   */
  waypoints: { name: string; lat: number; lon: number; distanceM?: number | null; passesM?: number[] }[];
}

export const courses = pgTable(
  'courses',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    name: text('name'),
    fileName: text('file_name'),
    geometry: jsonb('geometry').$type<CourseGeometry>().notNull(),
    lengthM: doublePrecision('length_m').notNull(),
    climbM: doublePrecision('climb_m').notNull(),
    descentM: doublePrecision('descent_m').notNull(),
    pointCount: integer('point_count').notNull(),
    hasElevation: boolean('has_elevation').notNull(),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('courses_race_uq').on(t.raceId)],
);

export const devices = pgTable(
  'devices',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    source: text('source').notNull().default('osmand'),
    hardwareId: text('hardware_id'),
    trackingKey: text('tracking_key').notNull(),
    raceId: integer('race_id').references(() => races.id, { onDelete: 'set null' }),
    assignedRunnerId: integer('assigned_runner_id').references(() => runners.id, { onDelete: 'set null' }),
    batteryState: text('battery_state'),
    batteryPercent: real('battery_percent'),
    /** Fix time of the newest fix (not the last arrival). */
    lastPingTime: tz('last_ping_time'),
    lastLat: doublePrecision('last_lat'),
    lastLon: doublePrecision('last_lon'),
    /** How often this device reports, in seconds; null: its source's default (the domain's expectedIntervalMs). */
    expectedIntervalS: integer('expected_interval_s'),
    /** A runner's own tracker polled from its feed: the MapShare name is the hardware id; a SPOT device may carry its own feed id. */
    feedId: text('feed_id'),
    /** MapShare password or SPOT feed password (Basic auth / feedPassword), when the feed is protected. */
    feedPassword: text('feed_password'),
    feedPolledAt: tz('feed_polled_at'),
    feedError: text('feed_error'),
    /** Back-off: the feed is not polled before this time. */
    feedNextPollAt: tz('feed_next_poll_at'),
    /**
     * An uplink that named this device but carried no position (a LoRaWAN uplink whose payload formatter gave none, an
     * OwnTracks message without one): when the last came and how many, so an admin sees a misconfigured formatter.
     */
    lastUplinkWithoutPositionAt: tz('last_uplink_without_position_at'),
    uplinksWithoutPosition: integer('uplinks_without_position').notNull().default(0),
    /**
     * A runner's own tracker attached by hardware id (inReach, LoRaWAN, Meshtastic, SPOT ESN) waits for proof of
     * possession: the claimed id is kept here and hardware_id stays null (no fix is received by it) until an admin
     * approves or the device sends claim_code (docs/decisions/own-tracker-proof.md).
     */
    claimHardwareId: text('claim_hardware_id'),
    claimCode: text('claim_code'),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('devices_tracking_key_uq').on(t.trackingKey),
    uniqueIndex('devices_source_hw_uq').on(t.source, t.hardwareId),
    uniqueIndex('devices_runner_uq').on(t.assignedRunnerId),
    index('devices_race_idx').on(t.raceId),
  ],
);

/**
 * Who held which device when: one row per runner hand-over. Used to attribute fixes by fix time
 * (the first holder in a race owns fixes from the race's start; a later holder from the hand-over on).
 */
export const deviceAssignments = pgTable(
  'device_assignments',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    raceId: integer('race_id')
      .notNull()
      .references(() => races.id, { onDelete: 'cascade' }),
    runnerId: integer('runner_id')
      .notNull()
      .references(() => runners.id, { onDelete: 'cascade' }),
    assignedAt: tz('assigned_at').notNull().defaultNow(),
    unassignedAt: tz('unassigned_at'),
  },
  (t) => [index('device_assignments_device_idx').on(t.deviceId, t.assignedAt)],
);

export const positions = pgTable(
  'positions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    raceId: integer('race_id').references(() => races.id, { onDelete: 'set null' }),
    runnerId: integer('runner_id').references(() => runners.id, { onDelete: 'set null' }),
    fixTime: tz('fix_time').notNull(),
    receivedAt: tz('received_at').notNull().defaultNow(),
    lat: doublePrecision('lat').notNull(),
    lon: doublePrecision('lon').notNull(),
    altitude: doublePrecision('altitude'),
    speed: doublePrecision('speed'),
    batteryPercent: real('battery_percent'),
    batteryState: text('battery_state'),
    source: text('source').notNull(),
    /** Horizontal accuracy the device reported, in metres (OwnTracks acc, Meshtastic precision bits); null: none. */
    accuracyM: doublePrecision('accuracy_m'),
    /** Direction of travel the device reported, degrees clockwise from true north; null: none. */
    headingDeg: doublePrecision('heading_deg'),
  },
  (t) => [
    // Idempotency: one fix per device per instant, however many times it is delivered.
    uniqueIndex('positions_device_fix_uq').on(t.deviceId, t.fixTime),
    index('positions_race_runner_time_idx').on(t.raceId, t.runnerId, t.fixTime),
  ],
);

export const deviceAlerts = pgTable(
  'device_alerts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    deviceId: integer('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    raceId: integer('race_id').references(() => races.id, { onDelete: 'set null' }),
    runnerId: integer('runner_id').references(() => runners.id, { onDelete: 'set null' }),
    kind: text('kind').notNull(),
    message: text('message'),
    at: tz('at').notNull(),
    lat: doublePrecision('lat'),
    lon: doublePrecision('lon'),
    receivedAt: tz('received_at').notNull().defaultNow(),
    acknowledgedAt: tz('acknowledged_at'),
  },
  (t) => [uniqueIndex('device_alerts_uq').on(t.deviceId, t.kind, t.at)],
);

/**
 * Race HQ alerts: one row per alert, for a runner (race_id, runner_id) or for a device that holds no race
 * (race_id and runner_id null). At most one open-or-acknowledged alert per runner and kind (per device and kind
 * without a runner): the partial unique indexes make that hold even when two processes raise the same condition.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    raceId: integer('race_id').references(() => races.id, { onDelete: 'cascade' }),
    runnerId: integer('runner_id').references(() => runners.id, { onDelete: 'cascade' }),
    deviceId: integer('device_id').references(() => devices.id, { onDelete: 'set null' }),
    kind: text('kind').notNull(),
    state: text('state').notNull().default('open'),
    raisedAt: tz('raised_at').notNull(),
    lastSeenAt: tz('last_seen_at').notNull(),
    lat: doublePrecision('lat'),
    lon: doublePrecision('lon'),
    message: text('message'),
    /** The message as a key and its parameters (domain `alert-messages.ts`); null for alerts stored before. */
    messageKey: text('message_key'),
    messageParams: jsonb('message_params').$type<Record<string, number | string>>(),
    acknowledgedBy: text('acknowledged_by'),
    acknowledgedAt: tz('acknowledged_at'),
    resolvedBy: text('resolved_by'),
    resolvedAt: tz('resolved_at'),
    note: text('note'),
  },
  (t) => [
    uniqueIndex('alerts_runner_active_uq')
      .on(t.runnerId, t.kind)
      .where(sql`${t.state} <> 'resolved' AND ${t.runnerId} IS NOT NULL`),
    uniqueIndex('alerts_device_active_uq')
      .on(t.deviceId, t.kind)
      .where(sql`${t.state} <> 'resolved' AND ${t.runnerId} IS NULL`),
    index('alerts_race_state_idx').on(t.raceId, t.state),
    index('alerts_state_idx').on(t.state),
  ],
);

/** Every change of an alert's state (raised, acknowledged, resolved): the HQ log, kept after the race. */
export const alertLog = pgTable(
  'alert_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    alertId: integer('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    state: text('state').notNull(),
    at: tz('at').notNull(),
    by: text('by'),
    note: text('note'),
  },
  (t) => [index('alert_log_alert_idx').on(t.alertId, t.id)],
);

export const spotFeeds = pgTable(
  'spot_feeds',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    feedId: text('feed_id').notNull(),
    feedPassword: text('feed_password'),
    lastPolledAt: tz('last_polled_at'),
    lastError: text('last_error'),
    createdAt: tz('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('spot_feeds_feed_uq').on(t.feedId)],
);

export * from './schema-race-ops';
export * from './schema-spectators';
export * from './schema-identity';
