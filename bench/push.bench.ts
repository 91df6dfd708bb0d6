/**
 * Web Push notifier (`npm run bench -- push`): one pass of the push-notify job over a 300-runner race followed by
 * 1,000 browsers (5 runners each, subscribed through the API), on PGlite, sending to a local push service (which
 * checks each message's VAPID signature). Three passes: with no news (what every PUSH_NOTIFY_SECONDS costs most of
 * the time), after every runner passed a checkpoint (5,000 messages: encryption per message, one POST each,
 * sent_state written), and the baseline in the same run: encrypting and signing as many messages alone, one
 * VAPID signature each as web-push does by default (the notifier signs once per push service and reuses it), without
 * sending or the database. The local push service runs in the same process and checks every message, so the
 * sending figure includes its work too.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import webpush from 'web-push';
import { buildApp } from '../apps/server/src/app';
import { loadConfig } from '../apps/server/src/config';
import { openDatabase } from '../apps/server/src/db/client';
import { PushNotifyJob } from '../apps/server/src/jobs/push-notify-job';
import { pointAlong, postFixes, seedLiveRace } from '../apps/server/test/support/live-seed';
import { startTestPushService } from '../apps/server/test/support/push-service';

const RUNNERS = 300;
const BROWSERS = 1000;
const FOLLOWED = 5;
const MIN = 60_000;

export default async function pushBench(): Promise<void> {
  const push = await startTestPushService();
  const config = loadConfig({
    DEMO: 'off',
    LOG_LEVEL: 'silent',
    ALERT_SWEEP_SECONDS: '0',
    PUSH_NOTIFY_SECONDS: '0',
    PUSH_ENDPOINT_HOSTS: push.origin,
  });
  const database = await openDatabase({});
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  try {
    const now = Date.now();
    const race = await seedLiveRace(app.db, {
      runners: RUNNERS,
      clockStartMs: now - 60 * MIN,
      expectedIntervalS: 3600,
    });
    for (const r of race.runners)
      await postFixes(app, race.raceId, r, [
        { t: now - 50 * MIN, ...pointAlong(1000) },
        { t: now - 30 * MIN, ...pointAlong(3000) },
      ]);
    const browsers = Array.from({ length: BROWSERS }, () => push.newBrowser());
    for (let i = 0; i < BROWSERS; i++) {
      const RunnerIds = Array.from(
        { length: FOLLOWED },
        (_, k) => race.runners[(i * FOLLOWED + k) % RUNNERS].runnerId,
      );
      const res = await app.inject({
        method: 'POST',
        url: '/api/open/push/subscriptions',
        payload: { Subscription: browsers[i].subscription, RaceId: race.raceId, RunnerIds },
        remoteAddress: `10.${(i >> 8) & 255}.${i & 255}.1`,
      });
      if (res.statusCode !== 201) throw new Error(`subscribe: ${res.statusCode} ${res.body}`);
    }
    const job = new PushNotifyJob({
      db: app.db,
      live: app.live,
      log: app.log,
      subject: config.pushSubject,
      everyMs: 60_000,
    });

    let t = performance.now();
    await job.runOnce();
    const quiet = performance.now() - t;
    if (push.received.length !== 0) throw new Error('a pass without news sent something');

    // Every runner passes Aid 1 (5 km).
    for (const r of race.runners)
      await postFixes(app, race.raceId, r, [{ t: Date.now(), ...pointAlong(6000) }]);
    t = performance.now();
    await job.runOnce();
    const busy = performance.now() - t;
    const sent = push.received.length;

    // Baseline: the same messages encrypted and signed, nothing else.
    const vapid = webpush.generateVAPIDKeys();
    const payload = JSON.stringify({
      kind: 'checkpoint',
      title: 'Runner1 Test1 (bib 1)',
      body: 'x'.repeat(80),
    });
    const targets = Array.from({ length: sent }, () => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      return {
        endpoint: `${push.origin}/push/x`,
        keys: { p256dh: ecdh.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') },
      };
    });
    t = performance.now();
    for (const target of targets)
      webpush.generateRequestDetails(target, payload, {
        vapidDetails: { subject: config.pushSubject, ...vapid },
        TTL: 3600,
        contentEncoding: 'aes128gcm',
      });
    const crypto = performance.now() - t;

    console.log(`${RUNNERS} runners, ${BROWSERS} browsers following ${FOLLOWED} each`);
    console.log(`pass without news:                 ${quiet.toFixed(0)} ms`);
    console.log(
      `pass with a passing per runner:    ${busy.toFixed(0)} ms, ${sent} messages (${((sent / busy) * 1000).toFixed(0)}/s)`,
    );
    console.log(
      `baseline, encrypt + sign ${sent} alone:  ${crypto.toFixed(0)} ms (the pass: ${(busy / crypto).toFixed(1)}x)`,
    );
  } finally {
    await app.close();
    await database.close();
    await push.close();
  }
}
