import { describe, expect, it } from 'vitest';
import {
  computeRunnerState,
  flowSeries,
  maxDeviation,
  seededRandom,
  simulateRunner,
  thinPolyline,
  type FlowPoint,
} from '../src/course';
import { min, START, started, straight } from './support/course-fixtures';

describe('thinPolyline (Douglas–Peucker)', () => {
  it.each([
    {
      name: 'a straight line keeps its ends',
      pts: [0, 1, 2, 3, 4].map((x) => [x, 2 * x]),
      tol: 0.01,
      want: 2,
    },
    {
      name: 'a corner is kept',
      pts: [
        [0, 0],
        [1, 0],
        [2, 0],
        [3, 3],
        [4, 6],
      ],
      tol: 0.1,
      want: 3,
    },
    {
      name: 'two points stay',
      pts: [
        [0, 0],
        [5, 5],
      ],
      tol: 1,
      want: 2,
    },
    { name: 'one point stays', pts: [[0, 0]], tol: 1, want: 1 },
    {
      name: 'a bump below the tolerance goes',
      pts: [
        [0, 0],
        [1, 0.05],
        [2, 0],
      ],
      tol: 0.1,
      want: 2,
    },
    {
      name: 'a bump above the tolerance stays',
      pts: [
        [0, 0],
        [1, 0.5],
        [2, 0],
      ],
      tol: 0.1,
      want: 3,
    },
  ] as { name: string; pts: FlowPoint[]; tol: number; want: number }[])('$name', ({ pts, tol, want }) => {
    const out = thinPolyline(pts, tol);
    expect(out).toHaveLength(want);
    expect(out[0]).toEqual(pts[0]);
    expect(out[out.length - 1]).toEqual(pts[pts.length - 1]);
    expect(maxDeviation(pts, out)).toBeLessThanOrEqual(tol);
  });

  it('keeps a noisy random walk within the tolerance in scaled units, with far fewer points', () => {
    const rand = seededRandom(7);
    const pts: FlowPoint[] = [];
    let d = 0;
    for (let k = 0; k < 2000; k++) {
      d += rand() < 0.1 ? 0 : rand() * 0.5; // km per step, with stops
      pts.push([START + k * 150_000, d]);
    }
    const sx = 1 / (2000 * 150_000);
    const sy = 1 / d;
    for (const tol of [0.001, 0.003, 0.01]) {
      const out = thinPolyline(pts, tol, sx, sy);
      expect(maxDeviation(pts, out, sx, sy)).toBeLessThanOrEqual(tol);
      expect(out.length).toBeLessThan(pts.length / 4);
    }
    // A tighter tolerance keeps more points.
    expect(thinPolyline(pts, 0.001, sx, sy).length).toBeGreaterThan(thinPolyline(pts, 0.01, sx, sy).length);
  });
});

describe('flowSeries', () => {
  const opts = { gapMs: 10 * 60_000, spanMs: 3 * 3600_000, lengthKm: 10, tolerance: 0.002 };

  it('breaks the line where data is missing for longer than the gap', () => {
    const progress = [0, 1, 2, 3, 20, 21, 22].map((m, k) => ({ t: min(m), distanceM: 100 * (k + 1) * 3 }));
    const lines = flowSeries(progress, opts);
    expect(lines).toHaveLength(2);
    expect(lines[0][0]).toEqual([min(0), 0.3]);
    expect(lines[0][lines[0].length - 1]).toEqual([min(3), 1.2]);
    expect(lines[1][0]).toEqual([min(20), 1.5]);
    expect(lines[1][lines[1].length - 1]).toEqual([min(22), 2.1]);
  });

  it('thins a simulated runner within the tolerance of the chart', () => {
    const course = straight(10_000);
    const sim = simulateRunner(course, {
      seed: 3,
      startMs: START,
      paceSecPerKm: 360,
      pingIntervalMs: 30_000,
    });
    const s = computeRunnerState(course, sim.fixes, started, sim.finishMs + 3600_000);
    const lines = flowSeries(s.progress, { ...opts, gapMs: 5 * 60_000 });
    expect(lines).toHaveLength(1);
    const original: FlowPoint[] = s.progress.map((p) => [p.t, Math.round(p.distanceM) / 1000]);
    const sx = 1 / opts.spanMs;
    const sy = 1 / opts.lengthKm;
    expect(maxDeviation(original, lines[0], sx, sy)).toBeLessThanOrEqual(opts.tolerance);
    expect(lines[0].length).toBeLessThan(original.length / 3);
    expect(lines[0][lines[0].length - 1][1]).toBe(10);
  });

  it('no progress, no lines', () => {
    expect(flowSeries([], opts)).toEqual([]);
  });
});
