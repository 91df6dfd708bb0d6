import type { FastifyPluginAsync } from 'fastify';
import directorCheckinRoutes from './checkins/director-routes';
import { noCheckinEvents, type CheckinEvents } from './checkins/events';
import { CheckinService } from './checkins/service';
import volunteerCheckinRoutes from './checkins/volunteer-routes';
import directorCheckpointRoutes from './checkpoints/director-routes';
import openCheckpointRoutes from './checkpoints/open-routes';
import { CheckpointService } from './checkpoints/service';
import directorCourseRoutes from './courses/director-routes';
import openCourseRoutes from './courses/open-routes';
import { CourseService } from './courses/service';
import adminDeviceRoutes from './devices/admin-routes';
import directorDeviceRoutes from './devices/director-routes';
import { RunnerTrackerService } from './devices/runner-tracker';
import runnerTrackerRoutes from './devices/runner-tracker-routes';
import { DeviceService } from './devices/service';
import { noRaceEvents, type RaceEvents } from './lib/race-events';
import { acceptEmptyJsonBodies } from './platform/json-body';
import openPushRoutes from './push/open-routes';
import { PushService } from './push/service';
import { vapidKeys } from './push/vapid';
import adminRequestRoutes from './races/admin-routes';
import directorRaceRoutes from './races/director-routes';
import openRaceRoutes from './races/open-routes';
import { RaceRequestService } from './races/request-service';
import { RaceService } from './races/service';
import directorRunnerRoutes from './runners/director-routes';
import openRunnerRoutes from './runners/open-routes';
import { RunnerService } from './runners/service';
import runnerExportRoutes from './runners/export-routes';
import { RunnerExportService } from './runners/export-service';
import runnerImportRoutes from './runners/import-routes';
import { RunnerImportService } from './runners/import-service';
import { RunnerStatusService, type RunnerDistanceLookup } from './runners/status';
import runnerStatusRoutes from './runners/status-routes';

export interface ApiRoutesOptions {
  /** Where the services announce race changes; without it (an app without an event bus) nothing is announced. */
  raceEvents?: RaceEvents;
  /** Where stored aid-station check-ins are announced (live races apply them as fixes); default: nowhere. */
  checkinEvents?: CheckinEvents;
  /** A runner's distance along the course now, from the live state (a DNF keeps it). */
  runnerDistance?: RunnerDistanceLookup;
}

/**
 * The REST API of races, runners, courses and devices: public reads, the director's own races, the admin's device
 * inventory and race requests, and the course map/download links. Builds each feature's service with what it
 * depends on and hands every route plugin the services it calls.
 */
const apiRoutes: FastifyPluginAsync<ApiRoutesOptions> = async (app, opts) => {
  // Only the routes registered below get this parser (this plugin is encapsulated); ingestion and the embedded
  // OIDC provider keep their own.
  acceptEmptyJsonBodies(app);

  const events = opts.raceEvents ?? noRaceEvents;
  const races = new RaceService(app.db, events);
  const runners = new RunnerService(app.db, events, races);
  const courses = new CourseService(app.db, events, races, app.config.publicUrl);
  const devices = new DeviceService(app.db, events, races);
  const trackers = new RunnerTrackerService(app.db, events);
  const requests = new RaceRequestService(app.db, events, courses);
  const checkinEvents = opts.checkinEvents ?? noCheckinEvents;
  const checkins = new CheckinService({
    db: app.db,
    raceEvents: events,
    checkinEvents,
    // The live race's splits: a GPS finish (read when a DNF comes; the live plugin decorates the app before this one).
    raceSplits: async (raceId) => (app.hasDecorator('live') ? app.live.splits(raceId) : []),
  });
  const imports = new RunnerImportService(app.db, events, races);
  // The live state is read when a results file is asked for (the live plugin decorates the app before this one), as
  // the public sees it (privacy of runners: the public delay).
  const exports = new RunnerExportService(app.db, races, () => app.publicView);
  const checkpoints = new CheckpointService(app.db, events, races);
  const statuses = new RunnerStatusService(app.db, events, opts.runnerDistance);
  const push = new PushService(app.db, vapidKeys(app.db), app.config.PUSH_ENDPOINT_HOSTS, () => app.live);

  await app.register(openRaceRoutes, { races });
  await app.register(openRunnerRoutes, { runners });
  await app.register(openCourseRoutes, { courses });
  await app.register(directorRaceRoutes, { races });
  await app.register(directorRunnerRoutes, { runners });
  await app.register(directorCourseRoutes, { courses, races });
  await app.register(directorDeviceRoutes, { devices });
  await app.register(adminDeviceRoutes, { devices });
  await app.register(runnerTrackerRoutes, { trackers });
  await app.register(adminRequestRoutes, { requests });
  await app.register(directorCheckinRoutes, { checkins });
  await app.register(volunteerCheckinRoutes, { checkins });
  await app.register(runnerImportRoutes, { imports });
  await app.register(runnerExportRoutes, { exports });
  await app.register(openCheckpointRoutes, { checkpoints });
  await app.register(directorCheckpointRoutes, { checkpoints });
  await app.register(runnerStatusRoutes, { statuses });
  await app.register(openPushRoutes, { push });
};

export default apiRoutes;
