import { cumulativeDistances, type CoursePoint } from '@racebeacon/domain';

/**
 * A course prepared for moving runners along it. Progress is measured in "effort metres": flat distance plus a
 * penalty for climbing (and a little for steep descents), so runners slow down uphill like real trail runners.
 */
export class CourseModel {
  readonly dist: number[];
  readonly effort: number[];
  readonly length: number;
  readonly totalEffort: number;

  constructor(readonly points: CoursePoint[]) {
    if (points.length < 2) throw new Error('The course needs at least two points.');
    this.dist = cumulativeDistances(points);
    this.length = this.dist[this.dist.length - 1];
    this.effort = [0];
    for (let i = 1; i < points.length; i++) {
      const d = this.dist[i] - this.dist[i - 1];
      const dz = (points[i][2] ?? 0) - (points[i - 1][2] ?? 0);
      // ~8 m of flat running per metre climbed (Naismith-like); steep descents cost a little too.
      const penalty = dz > 0 ? 8 * dz : Math.max(0, -dz - 0.15 * d) * 1.5;
      this.effort.push(this.effort[i - 1] + d + penalty);
    }
    this.totalEffort = this.effort[this.effort.length - 1];
  }

  /** Position (and course distance) reached after `effortMetres`. */
  at(effortMetres: number): {
    lat: number;
    lon: number;
    ele: number | null;
    distance: number;
    finished: boolean;
  } {
    const e = Math.max(0, effortMetres);
    if (e >= this.totalEffort) {
      const p = this.points[this.points.length - 1];
      return { lat: p[1], lon: p[0], ele: p[2], distance: this.length, finished: true };
    }
    let lo = 0;
    let hi = this.effort.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.effort[mid] <= e) lo = mid;
      else hi = mid;
    }
    const span = this.effort[hi] - this.effort[lo] || 1;
    const f = (e - this.effort[lo]) / span;
    const a = this.points[lo];
    const b = this.points[hi];
    const ele = a[2] === null || b[2] === null ? null : a[2] + (b[2] - a[2]) * f;
    return {
      lat: a[1] + (b[1] - a[1]) * f,
      lon: a[0] + (b[0] - a[0]) * f,
      ele,
      distance: this.dist[lo] + (this.dist[hi] - this.dist[lo]) * f,
      finished: false,
    };
  }
}
