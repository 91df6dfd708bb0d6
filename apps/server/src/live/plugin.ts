import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { PublicView } from '../privacy/public-view';
import openRoutes from './open-routes';
import { ReplayService } from './replay-service';
import storyRoutes from './story-routes';
import { LiveService } from './service';
import { openFileLimit } from './sse-hub';
import { StreamTickets, streamTicketRoutes } from './stream-ticket';

declare module 'fastify' {
  interface FastifyInstance {
    /** The live race: in-memory state per race, leaderboard, positions and SSE viewers (see live/service.ts). */
    live: LiveService;
    /** The race as the public sees it (privacy of runners; see privacy/public-view.ts). */
    publicView: PublicView;
    /** Tickets that open the live stream live for the race's director or an admin (see live/stream-ticket.ts). */
    streamTickets: StreamTickets;
  }
}

/** Needs the database and the event bus; registers the public live routes. */
export default fp(
  async (app: FastifyInstance) => {
    const live = new LiveService({
      db: app.db,
      bus: app.events,
      offCourseM: app.config.OFF_COURSE_METERS,
      log: app.log,
      maxStreams: app.config.liveMaxStreams,
      maxStreamsPerClient: app.config.LIVE_MAX_STREAMS_PER_CLIENT,
    });
    app.decorate('live', live);
    // Each stream holds a file descriptor: a cap set too close to the limit would starve pings and the API.
    const fdLimit = openFileLimit();
    if (fdLimit !== null && app.config.liveMaxStreams > fdLimit - 256) {
      app.log.warn(
        { liveMaxStreams: app.config.liveMaxStreams, openFileLimit: fdLimit },
        'LIVE_MAX_STREAMS leaves fewer than 256 file descriptors for pings, API requests and the database',
      );
    }
    // Open SSE streams would keep the HTTP server from closing: end them first (graceful shutdown).
    // Replay and the race-flow chart: built from the stored fixes, checked for access through the live state.
    const replay = new ReplayService({ db: app.db, live, offCourseM: app.config.OFF_COURSE_METERS });
    // Every public read of live data applies the race's privacy through the public view (a delayed race is its
    // replay at now − delay); it also streams to the viewers of such races.
    const publicView = new PublicView({ live, replay, log: app.log });
    live.setPrivateStream(publicView);
    app.decorate('publicView', publicView);
    const streamTickets = new StreamTickets(app.db);
    app.decorate('streamTickets', streamTickets);
    app.addHook('preClose', async () => {
      publicView.close();
      live.close();
    });
    app.addHook('onClose', async () => {
      publicView.close();
      live.close();
    });
    await app.register(openRoutes);
    await app.register(streamTicketRoutes, { tickets: streamTickets });
    await app.register(storyRoutes, { replay });
  },
  { name: 'live', dependencies: ['events'] },
);
