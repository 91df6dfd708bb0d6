import net, { type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { courses, races, runners } from '../src/db/schema';
import { parseFrameAncestors } from '../src/platform/frame-ancestors';
import securityHeadersPlugin from '../src/platform/security-headers';
import webAppPlugin from '../src/platform/web-app';
import { TEXT_PAGE_ROWS } from '../src/spectators/text-page';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';
import { pointAlong, postFixes, seedLiveRace, straightCourse, type SeededRace } from './support/live-seed';

const MIN = 60_000;

describe.each(dbKinds)('text view /race/{id}/text (%s)', (kind) => {
  let t: TestContext;
  let big: SeededRace;
  let unapproved: SeededRace;
  const now = Date.now();

  beforeAll(async () => {
    t = await createTestApp(kind);
    big = await seedLiveRace(t.app.db, {
      runners: 2500,
      courseLengthM: 50_000,
      clockStartMs: now - 120 * MIN,
      expectedIntervalS: 600,
    });
    await t.app.db.update(races).set({ name: 'Ultra des Cimes <2026>' }).where(eq(races.id, big.raceId));
    // Aid stations at 5 km (from the seed) and 20 km.
    const geometry = straightCourse(50_000);
    geometry.waypoints.push({
      name: 'Col du Loup',
      lat: pointAlong(20_000).lat,
      lon: pointAlong(20_000).lon,
    });
    await t.app.db.update(courses).set({ geometry }).where(eq(courses.raceId, big.raceId));
    // Realistic names, long ones included, so the size check is not flattered by short test names.
    await t.app.db
      .update(runners)
      .set({ firstName: 'Maximiliane-Charlotte', lastName: 'Van den Berghe-Oudenaarde' })
      .where(eq(runners.raceId, big.raceId));
    // Runner k at 30 km − 10 m·k: bib 1 leads, past the 20 km aid station; the last ones before 5 km.
    for (const [k, r] of big.runners.entries()) {
      if (k % 5 !== 0 && k > 200) continue;
      await postFixes(t.app, big.raceId, r, [{ t: now - 3 * MIN, ...pointAlong(30_000 - 10 * k) }]);
    }
    unapproved = await seedLiveRace(t.app.db, { runners: 2, approved: false, keyPrefix: 'unapproved' });
  }, 120_000);
  afterAll(async () => t?.close());

  it('lists the top 100 with rank, bib, name, status, distance, last checkpoint and last update, under 30 KB', async () => {
    const res = await t.app.inject({ url: `/race/${big.raceId}/text` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const html = res.body;
    expect(Buffer.byteLength(html)).toBeLessThan(30 * 1024);
    expect(html).toContain('<meta http-equiv="refresh" content="60">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('<html lang="en">');
    // The race name is escaped, not markup.
    expect(html).toContain('<h1>Ultra des Cimes &lt;2026&gt;</h1>');
    expect(html).not.toContain('<script');
    const rows = html.split('<tr><td').slice(1);
    expect(rows).toHaveLength(TEXT_PAGE_ROWS);
    expect(html).toContain(`Top ${TEXT_PAGE_ROWS} of 2,500 runners.`);
    // First row: rank 1, bib 1, 30.0 km, past Col du Loup (20 km), racing, last seen 3 min ago (UTC clock).
    const first = rows[0];
    expect(first).toContain('class=n>1<td>1<td>Maximiliane-Charlotte Van den Berghe-Oudenaarde');
    expect(first).toContain('<td>Racing<td class=n>30.0 km<td>Col du Loup');
    expect(first).toContain(`${new Date(now - 3 * MIN).toISOString().slice(11, 16)} UTC`);
    expect(html).toContain('<a href="/race/' + big.raceId + '">Open the full race page (map)</a>');
    expect(html).toMatch(/<form method="get" role="search">/);
    expect(html).toMatch(/<label for="q">Find a runner by bib or name<\/label>/);
    expect(html).toContain('<th scope=col>Rank');
    expect(html).toContain(`Newest position: <time datetime="${new Date(now - 3 * MIN).toISOString()}">`);
  });

  it('finds a runner by bib or by name, server-side (GET form), beyond the top 100', async () => {
    const bib = big.runners[1500].bib;
    const res = await t.app.inject({ url: `/race/${big.raceId}/text?q=${bib}` });
    expect(res.statusCode).toBe(200);
    const rows = res.body.split('<tr><td').slice(1);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.some((r) => r.includes(`<td>${bib}<td>`))).toBe(true);
    expect(res.body).toContain(`value="${bib}"`);
    expect(res.body).toContain('Show the leaderboard');

    await t.app.db
      .update(runners)
      .set({ firstName: 'Zoé', lastName: 'Kilian' })
      .where(eq(runners.id, big.runners[2222].runnerId));
    await t.app.live.leaderboard(big.raceId, {}); // the rename reaches the live state on its next build
    const byName = await t.app.inject({ url: `/race/${big.raceId}/text?q=nosuchname` });
    expect(byName.body).toContain('No runner found.');
    expect(byName.body).toContain('0 runners match “nosuchname”');
  });

  it("speaks the reader's language: ?lang=, else Accept-Language, else English; links to the others", async () => {
    const url = `/race/${big.raceId}/text`;
    const fr = await t.app.inject({ url: `${url}?lang=fr`, headers: { 'accept-language': 'de' } });
    expect(fr.statusCode).toBe(200);
    expect(fr.headers.vary).toMatch(/accept-language/i);
    expect(fr.body).toContain('<html lang="fr">');
    expect(fr.body).toContain('Résultats en direct, texte seul. Position la plus récente : <time');
    expect(fr.body).toContain(`Les ${TEXT_PAGE_ROWS} premiers sur 2\u202f500 coureurs.`);
    expect(fr.body).toContain('<th scope=col>Rang<th scope=col>Dossard');
    expect(fr.body).toContain('<td>En course<td class=n>30,0 km<td>Col du Loup');
    expect(fr.body).toContain('<label for="q">Trouver un coureur par dossard ou par nom</label>');
    expect(fr.body).toContain('<input type="hidden" name="lang" value="fr">');
    // The language links: the current one named, the others linked with their own name and tag.
    expect(fr.body).toContain('<strong lang=fr aria-current="true">Français</strong>');
    expect(fr.body).toContain('<a href="?lang=de" hreflang=de lang=de>Deutsch</a>');
    expect(fr.body).toContain('<a href="?lang=en" hreflang=en lang=en>English</a>');
    expect(fr.body).not.toContain('Live results');

    const de = await t.app.inject({ url, headers: { 'accept-language': 'nl;q=0.9, de;q=0.8, en;q=0.5' } });
    expect(de.body).toContain('<html lang="de">');
    expect(de.body).toContain('<th scope=col>Platz<th scope=col>Startnr.');
    expect(de.body).toContain(`Die ersten ${TEXT_PAGE_ROWS} von 2.500 Teilnehmenden.`);
    expect(de.body).toContain('<caption>Rangliste</caption>');
    expect(de.body).toContain('<td>Im Rennen<td class=n>30,0 km');

    for (const unknown of [
      { url: `${url}?lang=xx`, headers: { 'accept-language': 'nl, ja;q=0.5' } },
      { url, headers: {} },
    ]) {
      const en = await t.app.inject(unknown);
      expect(en.statusCode).toBe(200);
      expect(en.body, unknown.url).toContain('<html lang="en">');
      expect(en.body).toContain('Live results, text only.');
      expect(en.body).toContain('<td>Racing<td class=n>30.0 km');
    }

    // A search keeps the language in its links; the 404 page speaks it too.
    const search = await t.app.inject({ url: `${url}?lang=it&q=nosuchname` });
    expect(search.body).toContain('Nessun concorrente trovato.');
    expect(search.body).toContain('<a href="?lang=es&amp;q=nosuchname" hreflang=es lang=es>Español</a>');
    expect(search.body).toContain('<a href="?lang=it">Mostra la classifica</a>');
    const missing = await t.app.inject({
      url: '/race/999999/text?lang=es',
      headers: { accept: 'text/html' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('<html lang="es">');
    expect(missing.body).toContain('<h1>Carrera no encontrada</h1>');
  });

  it('escapes what the visitor typed', async () => {
    const res = await t.app.inject({
      url: `/race/${big.raceId}/text?q=${encodeURIComponent('"><script>x</script>')}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('answers a 404 page for an unknown race and for one that is not public ({error, message} to an API client)', async () => {
    for (const id of [999_999, unapproved.raceId]) {
      const res = await t.app.inject({
        url: `/race/${id}/text`,
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(res.statusCode, String(id)).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<h1>Race not found</h1>');
      const api = await t.app.inject({ url: `/race/${id}/text` });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toEqual({ error: 'race_not_found', message: expect.stringContaining(String(id)) });
    }
  });

  it('refuses a bad id or an over-long search with 400 {error, message}', async () => {
    const bad = await t.app.inject({ url: '/race/abc/text' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    const long = await t.app.inject({ url: `/race/${big.raceId}/text?q=${'x'.repeat(101)}` });
    expect(long.statusCode).toBe(400);
    const lang = await t.app.inject({ url: `/race/${big.raceId}/text?lang=${'x'.repeat(36)}` });
    expect(lang.statusCode).toBe(400);
    expect(lang.json()).toMatchObject({
      error: expect.any(String),
      message: expect.stringContaining('lang'),
    });
  });

  it('allows its inline stylesheet by hash and refuses to be framed', async () => {
    const res = await t.app.inject({ url: `/race/${big.raceId}/text` });
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/style-src 'self'( 'sha256-[^']+')+/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});

describe('EMBED_FRAME_ANCESTORS', () => {
  it.each([
    [undefined, ['*']],
    ['', ['*']],
    ['https://club.example.org', ['https://club.example.org']],
    [
      'https://a.example.org, https://*.b.example.org:8443 self',
      ['https://a.example.org', 'https://*.b.example.org:8443', "'self'"],
    ],
    ["'none'", ["'none'"]],
  ])('%j → %j', (value, expected) => {
    expect(parseFrameAncestors(value)).toEqual(expected);
  });
  it('stops the boot on a source CSP cannot use, naming the variable', () => {
    expect(() => loadConfig({ EMBED_FRAME_ANCESTORS: 'javascript:alert(1)' })).toThrow(
      /EMBED_FRAME_ANCESTORS/,
    );
    expect(() => loadConfig({ EMBED_FRAME_ANCESTORS: 'https://ok.example.org; script-src *' })).toThrow(
      /EMBED_FRAME_ANCESTORS/,
    );
  });
});

describe('framing: the embed pages only', () => {
  let dir: string;
  const build = async (env: Record<string, string>) => {
    const app = Fastify({ logger: false });
    app.decorate('config', loadConfig({ DEMO: 'off', LOG_LEVEL: 'silent', ...env }));
    await app.register(securityHeadersPlugin);
    await app.register(webAppPlugin, { root: dir });
    await app.ready();
    return app;
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rb-embed-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>app</title>');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets any site frame /embed/race/{id} by default, and no page else', async () => {
    const app = await build({});
    try {
      const embed = await app.inject({ url: '/embed/race/7?view=map' });
      expect(embed.statusCode).toBe(200);
      expect(embed.headers['content-security-policy']).toContain('frame-ancestors *');
      expect(embed.headers['x-frame-options']).toBeUndefined();
      for (const url of ['/', '/race/7', '/races', '/race/7/hq', '/embedded', '/add-device']) {
        const res = await app.inject({ url });
        expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
        expect(res.headers['x-frame-options'], url).toBe('DENY');
      }
    } finally {
      await app.close();
    }
  });

  it('chooses the headers on the resolved path: /embed/../admin/devices is never framed (issue 24.11)', async () => {
    // Sent raw over a socket: inject and fetch would resolve the dot segments before the server sees them.
    const app = await build({});
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const rawGet = (target: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = net.connect({ port, host: '127.0.0.1' }, () =>
            socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
          );
          let text = '';
          socket.setEncoding('utf8');
          socket.on('data', (c: string) => (text += c));
          socket.on('close', () => resolve(text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase()));
          socket.on('error', reject);
        });
      for (const target of [
        '/embed/../admin/devices',
        '/embed/%2e%2e/admin/devices',
        '/embed/./../admin/devices?view=map',
      ]) {
        const head = await rawGet(target);
        expect(head, target).toMatch(/^http\/1\.1 200/);
        expect(head, target).toContain("frame-ancestors 'none'");
        expect(head, target).toContain('x-frame-options: deny');
      }
      // A path that resolves into /embed/ is the embed page, as the browser will show it.
      expect(await rawGet('/race/../embed/race/7')).toContain('frame-ancestors *');
    } finally {
      await app.close();
    }
  });

  it('lets only the configured sites frame it', async () => {
    const app = await build({ EMBED_FRAME_ANCESTORS: 'https://club.example.org https://*.trail.example' });
    try {
      const embed = await app.inject({ url: '/embed/race/7?view=leaderboard' });
      expect(embed.headers['content-security-policy']).toContain(
        'frame-ancestors https://club.example.org https://*.trail.example',
      );
      const page = await app.inject({ url: '/race/7' });
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    } finally {
      await app.close();
    }
  });
});
