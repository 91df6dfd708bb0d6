import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addRace, waitFor } from './ingest-fixtures';
import { createTestApp, type TestContext } from './support/app';
import { dbKinds } from './support/databases';

/**
 * Issue 24.5: 200 HQ alert streams with one token from one address all opened. HQ streams are now capped per client
 * address like the live streams (LIVE_MAX_STREAMS_PER_CLIENT): 429 `too_many_streams` with Retry-After and
 * `Connection: close`; other addresses are not affected; a closed stream gives its slot back.
 */

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The server ended the connection (a refusal). */
  ended: Promise<void>;
  close(): void;
}

/** GET `url` from `localAddress` on a keep-alive connection of its own; a 200 resolves once `event: alerts` came. */
function openHq(url: string, token: string, localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true });
    const req = http.get(
      url,
      { localAddress, agent, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let body = '';
        const ended = new Promise<void>((r) => req.socket?.once('close', () => r()));
        const opened = (): Opened => ({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          ended,
          close: () => {
            req.destroy();
            agent.destroy();
          },
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (res.statusCode === 200 && body.includes('event: alerts')) resolve(opened());
        });
        res.on('end', () => resolve(opened()));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

describe.each(dbKinds)('HQ alert streams per client (%s)', (kind) => {
  let t: TestContext;
  let director: string;
  let admin: string;
  let url: string;
  let base: string;
  const open: Opened[] = [];
  const hq = async (from: string) => {
    const s = await openHq(url, director, from);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await createTestApp(kind, { LIVE_MAX_STREAMS_PER_CLIENT: '3' });
    director = await t.issuer.director('director-1');
    admin = await t.issuer.admin('admin-1');
    const raceId = await addRace(t.app, { startedAt: new Date(Date.now() - 3600_000) });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    url = `${base}/api/director/races/${raceId}/alerts/stream`;
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => t?.close());

  it('answers 429 past the per-client cap and closes that connection; another address still opens', async () => {
    for (let i = 0; i < 3; i++) expect((await hq('127.0.0.2')).status).toBe(200);
    const refused = await hq('127.0.0.2');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({
      error: 'too_many_streams',
      message: expect.any(String) as string,
    });
    // The server ends the refused connection although the client would keep it alive.
    await refused.ended;
    expect((await hq('127.0.0.3')).status).toBe(200);

    open[0].close();
    // Its slot comes back once the server sees the connection closed.
    const again = await waitFor(
      () => hq('127.0.0.2'),
      (s) => s.status === 200,
    );
    expect(again.body).toContain('event: alerts\ndata: []');
  });

  it("caps the admins' stream of every alert the same way", async () => {
    const adminHq = async () => {
      const s = await openHq(`${base}/api/admin/alerts/stream`, admin, '127.0.0.4');
      open.push(s);
      return s;
    };
    for (let i = 0; i < 3; i++) expect((await adminHq()).status).toBe(200);
    const refused = await adminHq();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'too_many_streams' });
    await refused.ended;
  });
});
