import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SWEEP_JOB } from '../src/jobs/alert-sweep-job';
import { RESUME_MARGIN_MS } from '../src/live/resume';
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
 * reconnect through the balancer with Last-Event-ID and resume on a survivor (event ids carry a watermark every
 * process understands, live/resume.ts): they get an update, not a snapshot, and what they hold then shows every
 * acked ping, those acked while they were away included; no acked ping is missing from the positions table; the
 * background jobs are taken over by a surviving process within a minute. Then a second process is stopped
 * gracefully (SIGTERM): its viewers are sent a short `retry:` as the last thing before their stream ends, and
 * resume on the last process the same way.
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
      // A process answers a resume from what it received itself since its first viewer (live/resume.ts): for a
      // watermark at least RESUME_MARGIN_MS (+ the clock allowance) after that. The kill comes later than that.
      const resumableAt = Date.now() + RESUME_MARGIN_MS + 3000;
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
      await new Promise((r) => setTimeout(r, Math.max(0, resumableAt - Date.now())));

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
        // Reconnected through the balancer to a survivor, with the last event id (and its watermark), and resumed
        // there: an update, not a snapshot. The viewer's state is only ever added to after its first snapshot, so
        // showing every acked ping means every ping acked after its last id came in the resumed stream.
        expect(v.connections.length).toBeGreaterThan(1);
        const again = v.connections[1];
        expect(again.status).toBe(200);
        expect(again.by).not.toBe(victim.name);
        expect(again.lastEventId).toMatch(/^[0-9a-f]+\.\d+\.\d+$/);
        expect(v.resumedWith[0]).toBe('update');
        expect(v.received.filter((e) => e.event === 'snapshot')).toHaveLength(1);
      }
      for (const v of viewers) {
        expect(v.missing(acked), `viewer on ${v.servedBy()} misses acked pings`).toEqual([]);
      }
      expect(converged).toBe(true);
      // The survivors' viewers never had to reconnect.
      const survivors = nodes.filter((n) => n !== victim);
      for (const v of viewers.filter((x) => !victimViewers.includes(x)))
        expect(v.connections).toHaveLength(1);

      // A graceful stop of a second process while devices keep pinging: its viewers get a short retry hint as
      // the last thing on their stream, reconnect to the last process and resume there, missing nothing.
      const stopping = survivors[0];
      const stoppingViewers = viewers.filter((v) => v.servedBy() === stopping.name);
      expect(stoppingViewers.length).toBeGreaterThan(0);
      const more = deviceLoad({
        base: lb!.url,
        runners: race.runners,
        firstFixMs: firstFixMs + 30_000,
        pauseMs: 300,
        maxPings: 12,
        position: (k) => pointAlong(1500 + k * 50),
      });
      await new Promise((r) => setTimeout(r, 1000));
      const connectionsBefore = new Map(stoppingViewers.map((v) => [v, v.connections.length]));
      await stopping.stop();
      const moreAcked = [...acked, ...(await more.done).acked];
      const convergedAgain = await waitUntil(
        () => (viewers.every((v) => v.missing(moreAcked).length === 0) ? true : undefined),
        20_000,
      );
      console.log(
        `cluster graceful stop: ${stopping.name} stopped (SIGTERM) with ${stoppingViewers.length} viewers; retry ` +
          `hints at its close ${stoppingViewers.map((v) => closeHint(v, connectionsBefore.get(v)! - 1)).join(', ')} ms; resumed on ` +
          `${stoppingViewers.map((v) => `${v.servedBy()} with ${v.resumedWith.at(-1)}`).join(', ')}`,
      );
      for (const v of stoppingViewers) {
        const n = connectionsBefore.get(v)!;
        expect(v.connections.length).toBeGreaterThan(n);
        // The stopping process's last words to this viewer: a retry hint, short, on the connection it ended (after
        // the everyday one of 3–10 s that opened it), and nothing after it there.
        const onIt = v.retries.filter((r) => r.connection === n - 1);
        expect(onIt.length).toBeGreaterThanOrEqual(2);
        const last = onIt.at(-1)!;
        expect(last.ms).toBeGreaterThanOrEqual(250);
        expect(last.ms).toBeLessThan(2000);
        expect(closeHint(v, n - 1)).toBe(last.ms);
        // (An attempt may meet the stopping process still closing, and get its 503: the viewer tries again.)
        expect(v.connections.slice(n).find((c) => c.status === 200)?.by).toBe(survivors[1].name);
        expect(v.resumedWith.at(-1)).toBe('update');
        expect(v.received.filter((e) => e.event === 'snapshot')).toHaveLength(1);
      }
      for (const v of viewers)
        expect(v.missing(moreAcked), `viewer on ${v.servedBy()} misses acked pings`).toEqual([]);
      expect(convergedAgain).toBe(true);
    }, 200_000);
  },
);

/** The retry hint a connection ended with: its last event when that is a `retry:` (undefined otherwise). */
function closeHint(v: LiveViewer, connection: number): number | undefined {
  const last = v.retries.filter((r) => r.connection === connection).at(-1);
  const after = v.received.filter((e) => last && e.at > last.at && e.connection === connection);
  return last && after.length === 0 ? last.ms : undefined;
}
