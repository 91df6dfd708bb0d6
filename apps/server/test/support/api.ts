import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestContext } from './app';
import type { DbKind } from './databases';

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  payload?: InjectOptions['payload'];
}

/** One API call through app.inject(), with an optional bearer token and JSON body. */
export async function call(
  t: TestContext,
  method: InjectOptions['method'],
  url: string,
  opts: CallOptions = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return t.app.inject({
    method,
    url,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as InjectOptions['payload'] } : {}),
    ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
  });
}

/** Path part of an absolute link the API handed out (PUBLIC_URL is not a real server in tests). */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** A multipart/form-data body with one file field, built by hand like a browser would send it. */
export function multipartFile(
  content: Buffer | string,
  opts: { field?: string; filename?: string; contentType?: string } = {},
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----racebeacon-test-${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${opts.field ?? 'file'}"; filename="${opts.filename ?? 'course.gpx'}"\r\n` +
      `Content-Type: ${opts.contentType ?? 'application/gpx+xml'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  return {
    payload: Buffer.concat([head, body, tail]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Creates a race as `token` and (optionally) approves it as an admin; returns its id. */
export async function createRace(
  t: TestContext,
  token: string,
  body: Record<string, unknown> = {},
  opts: { approve?: boolean; adminToken?: string } = {},
): Promise<number> {
  const res = await call(t, 'POST', '/api/director/races', { token, body: { Name: 'Test race', ...body } });
  if (res.statusCode !== 201) throw new Error(`createRace: ${res.statusCode} ${res.body}`);
  const id = res.json().RaceId as number;
  if (opts.approve) {
    const admin = opts.adminToken ?? (await t.issuer.admin());
    const ok = await call(t, 'POST', `/api/admin/requests/approve/${id}`, { token: admin });
    if (ok.statusCode !== 200) throw new Error(`approve: ${ok.statusCode} ${ok.body}`);
  }
  return id;
}

export interface ApiTest {
  t: TestContext;
  /** Directors "alice" and "bob", and an admin (not a director of any race). */
  alice: string;
  bob: string;
  admin: string;
}

/** A fresh app and database of `kind`, with the usual three callers' tokens. */
export async function startApiTest(kind: DbKind): Promise<ApiTest> {
  const t = await createTestApp(kind);
  return {
    t,
    alice: await t.issuer.director('alice'),
    bob: await t.issuer.director('bob'),
    admin: await t.issuer.admin(),
  };
}
