import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/client';
import { races, users } from '../src/db/schema';
import { DEMO_ACCOUNTS } from '../src/identity/accounts';

/**
 * The demo race and the one-click demo accounts are for the quick start only (issue 14, "Safe defaults"):
 * NODE_ENV=production turns both off unless asked for, and a server that offers the demo administrator says so.
 */

describe('demo defaults in the configuration', () => {
  it.each([
    [{}, true, true],
    [{ NODE_ENV: 'development' }, true, true],
    [{ NODE_ENV: 'production' }, false, false],
    [{ DATABASE_URL: 'postgres://u@h/db' }, false, false],
    [{ NODE_ENV: 'production', DEMO: 'on' }, true, false],
    [{ NODE_ENV: 'production', DEMO_ACCOUNTS: 'on' }, false, true],
    [{ NODE_ENV: 'production', DEMO: 'on', DEMO_ACCOUNTS: 'true' }, true, true],
    [{ DEMO: 'off', DEMO_ACCOUNTS: 'off' }, false, false],
  ])('%o → demo %s, demo accounts %s', (env, demo, demoAccounts) => {
    const c = loadConfig(env);
    expect(c.demo).toBe(demo);
    expect(c.demoAccounts).toBe(demoAccounts);
  });
});

async function startedApp(env: Record<string, string>) {
  const lines: string[] = [];
  const database = await openDatabase({});
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'warn', ...env }),
    database,
    logger: { level: 'warn', stream: { write: (line: string) => void lines.push(line) } },
  });
  await app.ready();
  const warnings = () =>
    lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
  const close = async () => {
    await app.close();
    await database.close();
  };
  return { app, database, warnings, close };
}

describe('a started server', () => {
  it('in production on a fresh database: no demo race, no demo accounts, no demo buttons, no warning', async () => {
    const s = await startedApp({ NODE_ENV: 'production' });
    try {
      expect(await s.database.db.select().from(users)).toEqual([]);
      expect(await s.database.db.select().from(races)).toEqual([]);
      const demoSignIn = await s.app.inject({
        method: 'POST',
        url: '/oidc/interaction/nope/demo',
        payload: { who: 'admin' },
      });
      expect(demoSignIn.statusCode).not.toBe(303);
      expect(s.warnings().filter((w) => /demo/i.test(w.msg))).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('with demo accounts: warns at start that a public one-click administrator exists', async () => {
    const s = await startedApp({ NODE_ENV: 'production', DEMO_ACCOUNTS: 'on', DEMO: 'off' });
    try {
      const [admin] = await s.database.db
        .select()
        .from(users)
        .where(eq(users.email, DEMO_ACCOUNTS.admin.email));
      expect(admin).toMatchObject({ isDemo: true });
      const warning = s.warnings().find((w) => /DEMO_ACCOUNTS is on/.test(w.msg));
      expect(warning?.msg).toContain(DEMO_ACCOUNTS.admin.email);
      expect(warning?.msg).toContain('DEMO_ACCOUNTS=off');
    } finally {
      await s.close();
    }
  });

  it('the quick start (no NODE_ENV, embedded database) still gets the demo accounts and the warning', async () => {
    const s = await startedApp({ DEMO: 'off' });
    try {
      const rows = await s.database.db.select().from(users);
      expect(rows.map((r) => r.email).sort()).toEqual(
        Object.values(DEMO_ACCOUNTS)
          .map((a) => a.email)
          .sort(),
      );
      expect(s.warnings().some((w) => /DEMO_ACCOUNTS is on/.test(w.msg))).toBe(true);
    } finally {
      await s.close();
    }
  });
});
