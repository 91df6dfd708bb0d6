import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SWEEP_JOB } from '../src/jobs/alert-sweep-job';
import { SPOT_POLL_JOB } from '../src/jobs/spot-poll-job';
import {
  clusterNode,
  deviceLoad,
  haproxyBinary,
  jobLockHolder,
  LiveViewer,
  missingAcked,
  startBalancer,
  waitUntil,
  type AckedPing,
  type Balancer,
  type ClusterNode,
} from './support/cluster';
import { createTestDatabase, type TestDatabase } from './support/databases';
import {
  startTestIssuer,
  TEST_ADMIN_GROUP,
  TEST_AUDIENCE,
  TEST_SCOPE,
  type TestIssuer,
} from './support/issuer';
import { pointAlong, seedLiveRace, type SeededRace } from './support/live-seed';

/**
 * A cluster that survives losing a node (issue 14): three server processes on one PostgreSQL behind a real HAProxy
 * (round-robin, health check on /api/ready). A started race, devices pinging through the balancer, viewers through
 * the balancer on every process. The process holding the SPOT poller's lock is killed with SIGKILL: its viewers
 * reconnect through the balancer with Last-Event-ID (another process's event ids are not its own, so they get a
 * fresh snapshot) and their state shows every acked ping; no acked ping is missing from the positions table; the
 * background jobs are taken over by a surviving process within a minute.
 *
 * PostgreSQL only (TEST_DATABASE_URL, which CI sets), like the other multi-process tests; with it set, a missing
 * haproxy fails the test.
 */
describe.runIf(process.env.TEST_DATABASE_URL)(
  'cluster of three behind HAProxy: kill -9 of one process',
  () => {
    let database: TestDatabase;
    let issuer: TestIssuer;
    let race: SeededRace;
    const nodes: ClusterNode[] = [];
    let lb: Balancer | undefined;
    const viewers: LiveViewer[] = [];

    beforeAll(async () => {
      haproxyBinary();
      database = await createTestDatabase('postgres');
      issuer = await startTestIssuer();
      race = await seedLiveRace(database.db, { runners: 6, clockStartMs: Date.now() - 30 * 60_000 });
      const env = {
        OIDC_ISSUER: issuer.url,
        OIDC_AUDIENCE: TEST_AUDIENCE,
        OIDC_CLIENT_ID: 'racebeacon-test-client',
        OIDC_API_SCOPE: TEST_SCOPE,
        ADMIN_GROUP_ID: TEST_ADMIN_GROUP,
      };
      for (const name of ['node1', 'node2', 'node3']) nodes.push(await clusterNode(name, database.url!, env));
      await Promise.all(nodes.map((n) => n.start()));
      lb = await startBalancer(nodes);
    }, 120_000);

    afterAll(async () => {
      for (const v of viewers) v.close();
      await lb?.stop();
      await Promise.all(nodes.map((n) => n.stop()));
      await issuer?.close();
      await database?.close();
    });

    it('viewers reconnect and miss no update, no acked ping is lost, jobs move to a survivor', async () => {
      const liveUrl = `${lb!.url}/api/open/races/${race.raceId}/live`;
      // Nine viewers through the balancer: round-robin puts three on each process.
      for (let i = 0; i < 9; i++) {
        const v = new LiveViewer(liveUrl);
        await v.connect();
        viewers.push(v);
      }
      const byNode = (name: string) => viewers.filter((v) => v.connections[0].by === name);
      for (const n of nodes) expect(byNode(n.name).length, `viewers on ${n.name}`).toBeGreaterThan(0);

      // Warm-up pings through the balancer: every viewer shows them, wherever it is.
      const firstFixMs = Date.now() - 10 * 60_000;
      const warm = deviceLoad({
        base: lb!.url,
        runners: race.runners,
        firstFixMs,
        maxPings: 2,
        position: (k) => pointAlong(200 + k * 50),
      });
      const warmStats = await warm.done;
      const warmAcked = warmStats.acked;
      expect(new Set(warmAcked.map((a) => a.by)).size).toBeGreaterThan(1);
      const warmSeen = await waitUntil(
        () => (viewers.every((v) => v.missing(warmAcked).length === 0) ? true : undefined),
        15_000,
      );
      expect(warmSeen, 'every viewer shows the warm-up pings').toBe(true);

      // Which process runs the SPOT poller (its advisory lock's session, by application_name).
      const holder = await waitUntil(
        async () => (await jobLockHolder(database.url!, SPOT_POLL_JOB)) ?? undefined,
        20_000,
      );
      expect(holder, 'a process holds the SPOT poll job lock').toBeDefined();
      const victim = nodes.find((n) => n.name === holder)!;
      const victimViewers = byNode(victim.name);

      // Pings keep coming through the balancer while the process dies (each device: a ping every 300 ms, retried
      // until acked; 20 pings each stays within the snapshot's 30-fix trail, so a snapshot shows every one).
      const load = deviceLoad({
        base: lb!.url,
        runners: race.runners,
        firstFixMs: firstFixMs + 2000,
        pauseMs: 300,
        maxPings: 20,
        position: (k) => pointAlong(300 + k * 50),
      });
      await new Promise((r) => setTimeout(r, 1500));
      const killedAt = Date.now();
      await victim.kill();

      // The jobs move: another process takes each lock (its runner retries every 5 s).
      const takeover = await waitUntil(
        async () => {
          const spot = await jobLockHolder(database.url!, SPOT_POLL_JOB);
          return spot && spot !== victim.name ? { spot, ms: Date.now() - killedAt } : undefined;
        },
        60_000,
        250,
      );
      const sweepHolder = await waitUntil(
        async () => {
          const h = await jobLockHolder(database.url!, ALERT_SWEEP_JOB);
          return h && h !== victim.name ? h : undefined;
        },
        60_000,
        250,
      );

      const stats = await load.done;
      const acked: AckedPing[] = [...warmAcked, ...stats.acked];

      // Every viewer (the reconnected ones included) ends up showing every acked ping.
      const converged = await waitUntil(
        () => (viewers.every((v) => v.missing(acked).length === 0) ? true : undefined),
        20_000,
      );
      const reconnectMs = victimViewers.map((v) => {
        const gap = v.gaps[0];
        return gap?.firstEventAt !== undefined ? gap.firstEventAt - killedAt : NaN;
      });
      const missingRows = await missingAcked(database.url!, acked);
      const refused = [...stats.refused].map(([s, n]) => `${s || 'conn'}×${n}`).join(', ') || 'none';
      console.log(
        `cluster failover: killed ${victim.name} (SPOT poll lock holder) with ${victimViewers.length} viewers; ` +
          `${acked.length} pings acked (${stats.attempts} attempts, refused: ${refused}), ` +
          `${missingRows.length} acked-but-missing rows; SPOT poll lock taken by ${takeover?.spot ?? 'nobody'} ` +
          `${takeover ? `${takeover.ms} ms` : 'not within 60 s'} after the kill, alert sweep by ${sweepHolder ?? 'nobody'}; ` +
          `viewers back (first event after the kill) in ${reconnectMs.join(', ')} ms, resumed with ` +
          `${victimViewers.map((v) => v.resumedWith[0]).join(', ')}`,
      );

      expect(takeover, 'the SPOT poll job is taken over within 60 s').toBeDefined();
      expect(sweepHolder, 'the alert sweep job is taken over within 60 s').toBeDefined();
      expect(missingRows).toEqual([]);
      for (const v of victimViewers) {
        // Reconnected through the balancer to a survivor, with the last event id; a different process's ids are
        // not its own, so the resume falls back to a fresh snapshot.
        expect(v.connections.length).toBeGreaterThan(1);
        const again = v.connections[1];
        expect(again.status).toBe(200);
        expect(again.by).not.toBe(victim.name);
        expect(again.lastEventId).toMatch(/^[0-9a-f]+\.\d+$/);
        expect(v.resumedWith[0]).toBe('snapshot');
      }
      for (const v of viewers) {
        expect(v.missing(acked), `viewer on ${v.servedBy()} misses acked pings`).toEqual([]);
      }
      expect(converged).toBe(true);
      // The survivors' viewers never had to reconnect.
      for (const v of viewers.filter((x) => !victimViewers.includes(x)))
        expect(v.connections).toHaveLength(1);
    }, 150_000);
  },
);
