// Drives RaceBeacon's sign-in against the Glewlwyd started by scripts/try-glewlwyd.sh, in Chromium, as a user
// would: Director Login → Glewlwyd's login page → back in the app; an API call; Logout. By hand, not in CI.
//   node scripts/try-glewlwyd-browser.mjs [runner1|boss1]   (APP_URL defaults to http://127.0.0.1:3100)
import { chromium } from 'playwright-core';

const appUrl = process.env.APP_URL ?? 'http://127.0.0.1:3100';
const who = process.argv[2] ?? 'runner1';
const password = process.env.GW_PASSWORD ?? 'racebeacon-pw';
const shots = process.env.SHOTS_DIR ?? '/tmp/racebeacon-glewlwyd';

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
const page = await browser.newPage();
const log = (...a) => console.log(`[${who}]`, ...a);
page.on('console', (m) => {
  if (m.type() === 'error' || m.type() === 'warning') log('console', m.type(), m.text());
});
const apiAnswers = [];
page.on('response', (r) => {
  const u = new URL(r.url());
  if (u.origin !== appUrl && r.status() >= 400)
    log('provider answered', r.status(), r.request().method(), u.pathname + u.search);
  if (u.origin === appUrl && u.pathname.startsWith('/api/') && u.pathname !== '/api/config')
    apiAnswers.push(`${r.request().method()} ${u.pathname} ${r.status()}`);
});
const nav = () => page.getByRole('navigation').first();
const navNames = async () =>
  (await nav().getByRole('link').or(nav().getByRole('button')).allTextContents()).map((s) => s.trim());
let failed = false;
const check = (ok, what) => {
  log(ok ? 'OK  ' : 'FAIL', what);
  if (!ok) failed = true;
};

try {
  await page.goto(appUrl);
  await nav().getByRole('button', { name: 'Director Login' }).waitFor();
  await page.getByRole('button', { name: 'Director Login' }).click();
  await page.waitForURL((u) => u.port !== new URL(appUrl).port, { timeout: 15000 });
  const authReq = new URL(page.url());
  log('at provider', authReq.origin + authReq.pathname);
  // Glewlwyd's login page (login.html, a React app): user name, password, then consent for the client's scopes.
  await page.locator('input#username, input[name=username]').first().waitFor({ timeout: 15000 });
  await page.screenshot({ path: `${shots}/${who}-1-login.png` });
  await page.locator('input#username, input[name=username]').first().fill(who);
  await page.locator('input[type=password]').first().fill(password);
  await page.locator('input[type=password]').first().press('Enter');
  // Either straight back to the app or a consent/continue step.
  for (let i = 0; i < 6 && new URL(page.url()).origin !== appUrl; i++) {
    await page.waitForTimeout(1000);
    if (new URL(page.url()).origin === appUrl) break;
    await page.screenshot({ path: `${shots}/${who}-2-provider-${i}.png` });
    // The consent page lists the client's scopes unticked (openid ticked and fixed): tick them all, then Grant.
    for (let n = 0; n < 10; n++) {
      const box = page.locator('input[type=checkbox]:visible:not(:checked):not(:disabled)').first();
      if ((await box.count()) === 0) break;
      await box.click();
      await page.waitForTimeout(200);
    }
    for (const name of [/Grant/i, /Continue/i]) {
      const b = page.getByRole('button', { name });
      if ((await b.count()) > 0 && (await b.first().isEnabled())) {
        log('clicking', name.source);
        await b.first().click();
        break;
      }
    }
  }
  await page.waitForURL((u) => u.origin === appUrl, { timeout: 20000 });
  await page.waitForTimeout(2000);
  await page.screenshot({ path: `${shots}/${who}-3-back.png` });
  const problem = page.getByTestId('sign-in-problem');
  if ((await problem.count()) > 0) log('sign-in problem shown:', await problem.textContent());
  await nav().getByRole('button', { name: 'Logout' }).waitFor({ timeout: 15000 });
  check(true, `signed in; nav: ${(await navNames()).join(', ')}`);
  const claims = await page.evaluate(() => {
    const k = Object.keys(sessionStorage).find((x) => x.startsWith('oidc.user:'));
    if (!k) return null;
    const u = JSON.parse(sessionStorage.getItem(k));
    const part = (t) => JSON.parse(atob(t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return {
      id: part(u.id_token),
      access: part(u.access_token),
      scope: u.scope,
      hasRefresh: !!u.refresh_token,
    };
  });
  log('id token claims', JSON.stringify(claims?.id));
  log('access token claims', JSON.stringify(claims?.access));
  log('scope', claims?.scope, 'refresh token:', claims?.hasRefresh);

  // A call that needs the API scope, and for boss1 an admin call, through the app's own screens.
  if (who === 'boss1') {
    check((await navNames()).includes('Devices'), 'admin screens (Devices) in the nav');
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/devices');
    await nav().getByRole('link', { name: 'Devices' }).click();
    const r = await answer;
    check(r.status() === 200, `GET /api/admin/devices → ${r.status()}`);
  } else {
    check(!(await navNames()).includes('Devices'), 'no admin screens for a non-admin');
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/director/races');
    await nav().getByRole('link', { name: 'My Races' }).click();
    const r = await answer;
    check(r.status() === 200, `GET /api/director/races → ${r.status()}`);
    const admin = await page.evaluate(async () => {
      const k = Object.keys(sessionStorage).find((x) => x.startsWith('oidc.user:'));
      const t = JSON.parse(sessionStorage.getItem(k)).access_token;
      return (await fetch('/api/admin/devices', { headers: { authorization: `Bearer ${t}` } })).status;
    });
    check(admin === 403, `GET /api/admin/devices as non-admin → ${admin}`);
  }

  // RENEW=1 or RENEW=frame (no refresh token: the hidden frame), with GW_ACCESS_TOKEN_SECONDS=60 in try-glewlwyd.sh: wait until the access token has expired, then an
  // API call must go out with a new one (the app's refresh-token grant at Glewlwyd's token endpoint).
  if (process.env.RENEW) {
    const tokenNow = () =>
      page.evaluate(() => {
        const k = Object.keys(sessionStorage).find((x) => x.startsWith('oidc.user:'));
        const u = JSON.parse(sessionStorage.getItem(k));
        return { at: u.access_token, exp: u.expires_at };
      });
    if (process.env.RENEW === 'frame') {
      // Drop the refresh token: renewal must then go through the hidden frame (prompt=none).
      await page.evaluate(() => {
        const k = Object.keys(sessionStorage).find((x) => x.startsWith('oidc.user:'));
        const u = JSON.parse(sessionStorage.getItem(k));
        delete u.refresh_token;
        sessionStorage.setItem(k, JSON.stringify(u));
      });
    }
    const before = await tokenNow();
    const waitMs = Math.max(0, before.exp * 1000 - Date.now()) + 2000;
    log(`waiting ${Math.round(waitMs / 1000)} s for the access token to expire`);
    await page.waitForTimeout(waitMs);
    const tokenCall = page.waitForRequest((r) => new URL(r.url()).pathname.endsWith('/token'), {
      timeout: 20000,
    });
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/director/races');
    await nav().getByRole('link', { name: 'Home' }).click();
    await nav().getByRole('link', { name: 'My Races' }).click();
    const grant = new URLSearchParams((await tokenCall).postData() ?? '').get('grant_type');
    const expected = process.env.RENEW === 'frame' ? 'authorization_code' : 'refresh_token';
    const r = await answer;
    const after = await tokenNow();
    check(
      r.status() === 200 && after.at !== before.at && grant === expected,
      `after expiry: ${grant} grant, new token ${after.at !== before.at}, GET /api/director/races → ${r.status()}`,
    );
  }

  // Reload keeps the session.
  await page.reload();
  await nav().getByRole('button', { name: 'Logout' }).waitFor({ timeout: 15000 });
  check(true, 'reload keeps the session');

  // Logout: to Glewlwyd's end_session with id_token_hint, post_logout_redirect_uri and state; back on the app.
  const endSession = page.waitForRequest((r) => new URL(r.url()).pathname.endsWith('/end_session'));
  await nav().getByRole('button', { name: 'Logout' }).click();
  const es = new URL((await endSession).url());
  log('end_session params', [...es.searchParams.keys()].join(', '));
  await page.waitForURL((u) => u.origin !== appUrl, { timeout: 10000 });
  await page.waitForTimeout(1500);
  log('provider logout page', page.url());
  for (let i = 0; i < 8 && new URL(page.url()).origin !== appUrl; i++) {
    await page.waitForTimeout(1000);
    if (new URL(page.url()).origin === appUrl) break;
    await page.screenshot({ path: `${shots}/${who}-4-logout-${i}.png` });
    for (const name of [/log ?out/i, /sign ?out/i, /^Continue/i, /^OK/i]) {
      const b = page.getByRole('button', { name });
      if ((await b.count()) > 0 && (await b.first().isVisible())) {
        log('clicking', name.source, 'at', new URL(page.url()).pathname);
        await b.first().click();
        break;
      }
    }
  }
  await page.waitForURL((u) => u.origin === appUrl, { timeout: 10000 });
  await nav().getByRole('button', { name: 'Director Login' }).waitFor({ timeout: 15000 });
  check(true, `signed out, back at ${page.url()}`);
  // The provider session is gone: Director Login asks for the password again.
  await page.getByRole('button', { name: 'Director Login' }).click();
  await page.waitForURL((u) => u.origin !== appUrl, { timeout: 15000 });
  await page.waitForTimeout(1500);
  await page.screenshot({ path: `${shots}/${who}-5-after-logout.png` });
  check(
    new URL(page.url()).origin !== appUrl && (await page.locator('input[type=password]').count()) > 0,
    'after logout the provider asks for the password again',
  );
} catch (err) {
  failed = true;
  log('ERROR', err.message.split('\n')[0], 'at', page.url());
  await page.screenshot({ path: `${shots}/${who}-error.png` }).catch(() => undefined);
} finally {
  log('API answers', apiAnswers.join('; '));
  await browser.close();
}
process.exit(failed ? 1 : 0);
