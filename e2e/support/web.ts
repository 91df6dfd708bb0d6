import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { Page, Dialog } from 'playwright-core';
import { races, runners } from '../../apps/server/src/db/schema';
import { screenshot } from './browser';

const require = createRequire(import.meta.url);
const axeSource: string = (require('axe-core') as { source: string }).source;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Runs axe-core in the page; returns the serious and critical violations (an empty list passes). */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  const hasAxe = await page.evaluate(() => 'axe' in window);
  // Evaluated through the DevTools protocol, not as an inline <script>: the app's Content-Security-Policy refuses
  // inline scripts (as it should), and that must not stop the accessibility check.
  if (!hasAxe) await page.evaluate(`${axeSource}\n;void 0`);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> } }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }[];
  });
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
}

/**
 * Screenshots the current screen at 1280 px and at 375 px (a phone), running the accessibility scan at both
 * widths. Returns the violations found; the viewport is restored afterwards.
 */
export async function captureScreen(page: Page, name: string): Promise<AxeViolation[]> {
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  const found: AxeViolation[] = [];
  for (const [width, height] of [
    [1280, 900],
    [375, 812],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await screenshot(page, `${name}-${width}`);
    for (const v of await seriousA11yViolations(page)) found.push({ ...v, id: `${v.id}@${width}` });
  }
  await page.setViewportSize(original);
  return found;
}

/**
 * Answers window.confirm/alert dialogs: each confirm takes the next queued answer (true when the queue is
 * empty); every dialog's type and message is recorded so tests assert the exact texts.
 */
export function answerDialogs(page: Page) {
  const seen: { type: string; message: string }[] = [];
  const answers: boolean[] = [];
  page.on('dialog', (dialog: Dialog) => {
    seen.push({ type: dialog.type(), message: dialog.message() });
    if (dialog.type() === 'confirm') {
      const yes = answers.length ? answers.shift()! : true;
      void (yes ? dialog.accept() : dialog.dismiss());
    } else {
      void dialog.accept();
    }
  });
  return {
    seen,
    /** The next confirm is declined. */
    declineNext() {
      answers.push(false);
    },
    last() {
      return seen[seen.length - 1];
    },
  };
}

/** Seeds a race directly in the database (tests that do not sign in). */
export async function seedRace(
  app: FastifyInstance,
  values: {
    name: string;
    description?: string;
    location?: string;
    startTime?: Date | null;
    approved?: boolean;
    hasStarted?: boolean;
    hasFinished?: boolean;
    directorId?: string;
  },
): Promise<number> {
  const [row] = await app.db
    .insert(races)
    .values({
      name: values.name,
      description: values.description ?? '',
      location: values.location ?? '',
      startTime: values.startTime ?? null,
      approved: values.approved ?? true,
      hasStarted: values.hasStarted ?? false,
      hasFinished: values.hasFinished ?? false,
      directorId: values.directorId ?? 'seeded-director',
    })
    .returning({ id: races.id });
  return row.id;
}

export async function seedRunner(
  app: FastifyInstance,
  raceId: number,
  values: { firstName: string; lastName: string; bibNumber?: string; gender?: 'M' | 'F'; age?: number },
): Promise<number> {
  const [row] = await app.db
    .insert(runners)
    .values({
      raceId,
      firstName: values.firstName,
      lastName: values.lastName,
      bibNumber: values.bibNumber ?? null,
      gender: values.gender ?? 'M',
      age: values.age ?? null,
    })
    .returning({ id: runners.id });
  return row.id;
}

/** Texts of the visible main navigation entries, in order. */
export async function navItems(page: Page): Promise<string[]> {
  return (await page.locator('nav[aria-label="Main"] :is(a, button)').allTextContents()).map((t) => t.trim());
}

/**
 * The app's own console errors: Chromium also logs every non-2xx response as "Failed to load resource", which is
 * the network, not the app (an unknown race's 404, a refused stream's 429).
 */
export function appErrors(errors: string[]): string[] {
  return errors.filter((e) => !e.startsWith('Failed to load resource:'));
}
