/** A fix's own accuracy (when the device reports one) weighs it in the matcher: σ = max(15 m, accuracy). */
import { describe, expect, it } from 'vitest';
import { computeRunnerState, type Fix } from '../src/course';
import { emissionCost, fixSigma, GPS_SIGMA_M } from '../src/course/hmm';
import { fixAt, min, started, straight } from './support/course-fixtures';

describe('fix accuracy', () => {
  const course = straight(10_000);
  // 3 m/s along a straight road, a fix every 2.5 minutes; the fifth 85 m off the road (a poor fix).
  const track = (accuracy?: number): Fix[] =>
    [0, 1, 2, 3, 4, 5, 6].map((k) => {
      const f = fixAt(course, 450 * (k + 1), 2.5 * (k + 1), 0, k === 4 ? 85 : 0);
      return k === 4 && accuracy !== undefined ? { ...f, accuracy } : f;
    });

  it('a fix 85 m off the road is an outlier when nothing is said about its accuracy', () => {
    const s = computeRunnerState(course, track(), started, min(20));
    expect(s.progress.map((p) => p.t)).not.toContain(min(12.5));
  });

  it('the same fix reported with a 60 m accuracy is believed, at its place along the road', () => {
    const s = computeRunnerState(course, track(60), started, min(20));
    const p = s.progress.find((q) => q.t === min(12.5));
    expect(p).toBeDefined();
    expect(Math.abs(p!.distanceM - 2250)).toBeLessThan(30);
  });

  it('a fix better than the usual σ is weighed as usual; a worse one with its own σ', () => {
    expect(fixSigma({ t: 0, cands: [], accuracyM: 5 })).toBe(GPS_SIGMA_M);
    expect(fixSigma({ t: 0, cands: [] })).toBe(GPS_SIGMA_M);
    expect(fixSigma({ t: 0, cands: [], accuracyM: 40 })).toBe(40);
    const c = { offsetM: 45, alongM: 100, alongUnclampedM: 100, segment: 0, lat: 0, lon: 0 };
    expect(emissionCost(c, 40)).toBeLessThan(emissionCost(c));
  });
});
