/**
 * The most plausible sequence of passes for the runner's last few fixes: a small hidden Markov model decoded with
 * Viterbi. Hidden state per fix: which pass of the course (distance along it) the runner was on, or "not this fix"
 * (a GPS outlier, skipped at a fixed cost). Emission: Gaussian GPS error on the offset from the pass. Transition:
 * the progress between two fixes must be physically possible in the time between them (not back by more than noise,
 * not beyond the fastest plausible speed), and costs its disagreement with the runner's speed (Laplace, falling
 * short half as costly as overshooting). Parallel legs 25–40 m apart (switchbacks, a lollipop stem) are told apart
 * by which sequence of legs a runner can actually have run, not by the nearest leg of one fix.
 *
 * The newest fix is held to a stricter bound than the ones before it: a pass far beyond what the runner's own speed
 * allows is only believed once a later fix continues from it (one wild fix never moves anyone far ahead).
 */
import type { CourseCandidate } from './geometry';
import type { ProgressPoint } from './types';

/** One fix of the window: its time and the passes near it. */
export interface WindowFix {
  t: number;
  cands: CourseCandidate[];
}

export interface DecodeParams {
  /** Where the runner was before the window's first fix (decided, not re-decided). */
  anchor: ProgressPoint;
  /** Expected speed (m/s), for the cost of each step. */
  speedMps: number;
  /** The runner's best recent speed (m/s) or null before it is known: bounds the newest fix's advance. */
  cruiseMps: number | null;
  /** Fastest plausible progress at all (m/s): bounds every step. */
  maxSpeedMps: number;
}

/** GPS error (σ, metres) assumed when weighing how well a pass fits a fix. */
export const GPS_SIGMA_M = 15;
/** GPS noise (σ ≈ 10 m on each of two fixes) can put a runner this far behind their last position. */
export const BACK_TOLERANCE_M = 60;
/** Slack on the forward bound for noise and a short burst above maxSpeed. */
export const FORWARD_TOLERANCE_M = 100;
/** Scale of the disagreement with the predicted distance: this much, plus a fraction of the predicted advance. */
const PREDICTION_SCALE_M = 50;
const PREDICTION_SCALE_FRACTION = 0.5;
/** A step confirmed by the fix after it may reach this many times maxSpeed. */
const CONFIRMED_SPEED_FACTOR = 1;
/** Cost of declaring a fix an outlier (≈ a fix 5 σ off its pass). */
const SKIP_COST = 12;
/** Newest fix: an advance beyond this many times the runner's speed (or JUMP_SLACK_M) waits for confirmation. */
const JUMP_SPEED_FACTOR = 1.6;
export const JUMP_SLACK_M = 250;
/** The jump bound assumes at least this speed (a brisk walk), so a runner resting at an aid station can leave it. */
const MIN_LIMIT_SPEED_MPS = 2;
/** A newest candidate this far from the course that also runs ahead of the prediction is treated as a jump (4 σ). */
const SUSPICIOUS_OFFSET_M = 4 * GPS_SIGMA_M;
/** A skipped fix with a pass this close to the runner's place showed them still there. */
const STAYED_M = 100;
/** Hypotheses costing this much more than the best are dropped. */
const PRUNE_COST = 25;

interface Node {
  /** Progress (never below the predecessor's). */
  d: number;
  /** Time of the fix this progress belongs to (the anchor's for the root). */
  t: number;
  cost: number;
  prev: Node | null;
  /** The pass taken at this step, or null: this step's fix skipped (d, t carried from prev). */
  c: CourseCandidate | null;
}

export interface Decoded {
  /** Per window fix: the pass of the most plausible sequence, or null (the fix is not believed). */
  passes: (CourseCandidate | null)[];
  /** Per window fix: the progress on that sequence (carried over a skipped fix). */
  distances: number[];
  /**
   * How much more the best sequence putting the newest fix elsewhere (more than AMBIGUOUS_DISTANCE_M away) costs
   * (nats; an alternative ahead AHEAD_DISCOUNT more; Infinity when there is none): small means the newest fix
   * alone cannot tell where the runner is.
   */
  margin: number;
}

/** An alternative ahead of the best place weighs this much less (nats) than one behind it. */
const AHEAD_DISCOUNT = 1.5;
/** Two places for the newest fix further apart than this are different answers, not noise. */
const AMBIGUOUS_DISTANCE_M = 100;

export function emissionCost(c: CourseCandidate): number {
  // Past the finish, the distance from the course's last segment carried straight on (a runner who ran through).
  const beyond = c.alongUnclampedM - c.alongM;
  const offset = beyond > 0 ? Math.sqrt(Math.max(0, c.offsetM * c.offsetM - beyond * beyond)) : c.offsetM;
  const z = offset / GPS_SIGMA_M;
  return 0.5 * z * z;
}

function stepCost(
  from: Node,
  c: CourseCandidate,
  t: number,
  p: DecodeParams,
  newest: boolean,
  prev: WindowFix | null,
): number {
  const dt = Math.max(0, t - from.t) / 1000;
  const dd = c.alongM - from.d;
  if (dd < -BACK_TOLERANCE_M) return Infinity;
  // Skipping the fix before, which put the runner where they were, makes no room for a jump: the newest fix's
  // bounds count from that fix then.
  const stayed =
    newest &&
    prev !== null &&
    prev.t > from.t &&
    prev.cands.some((x) => Math.abs(x.alongM - from.d) < STAYED_M);
  const boundDt = stayed ? Math.max(0, t - prev.t) / 1000 : dt;
  // A step a later fix continues from may be faster than maxSpeed: it releases a runner held on a wrong pass.
  if (dd > (newest ? 1 : CONFIRMED_SPEED_FACTOR) * p.maxSpeedMps * boundDt + FORWARD_TOLERANCE_M)
    return Infinity;
  const predicted = p.speedMps * dt;
  if (newest) {
    // The runner's own speed: the best of their recent cruise and this path's average since the anchor.
    const pathDt = (from.t - p.anchor.t) / 1000;
    const pathSpeed = pathDt >= 60 ? (from.d - p.anchor.distanceM) / pathDt : 0;
    const known = p.cruiseMps !== null || pathDt >= 60;
    if (known) {
      const limit = Math.max(p.cruiseMps ?? 0, pathSpeed, MIN_LIMIT_SPEED_MPS);
      if (dd > Math.max(JUMP_SLACK_M, JUMP_SPEED_FACTOR * limit * boundDt)) return Infinity;
    }
    if (c.offsetM > SUSPICIOUS_OFFSET_M && dd > predicted + JUMP_SLACK_M) return Infinity;
  }
  const scale = PREDICTION_SCALE_M + PREDICTION_SCALE_FRACTION * predicted;
  const delta = dd - predicted;
  return delta >= 0 ? delta / scale : -delta / (2 * scale);
}

/** Viterbi over the window (oldest first). */
export function decodeWindow(fixes: readonly WindowFix[], p: DecodeParams): Decoded {
  const root: Node = {
    d: p.anchor.distanceM,
    t: p.anchor.t,
    cost: 0,
    prev: null,
    c: null,
  };
  let nodes: Node[] = [root];
  for (let k = 0; k < fixes.length; k++) {
    const f = fixes[k];
    const newest = k === fixes.length - 1;
    const next: Node[] = [];
    let min = Infinity;
    for (const c of f.cands) {
      let best: Node | null = null;
      let bestCost = Infinity;
      for (const n of nodes) {
        const cost = n.cost + stepCost(n, c, f.t, p, newest, k > 0 ? fixes[k - 1] : null);
        if (cost < bestCost) {
          bestCost = cost;
          best = n;
        }
      }
      if (best === null) continue;
      const cost = bestCost + emissionCost(c);
      next.push({ d: Math.max(c.alongM, best.d), t: f.t, cost, prev: best, c });
      if (cost < min) min = cost;
    }
    for (const n of nodes) {
      const cost = n.cost + SKIP_COST;
      next.push({ d: n.d, t: n.t, cost, prev: n, c: null });
      if (cost < min) min = cost;
    }
    nodes = next.filter((n) => n.cost <= min + PRUNE_COST);
  }
  let end = nodes[0];
  for (const n of nodes) if (n.cost < end.cost) end = n;
  // A place behind the best one counts fully: a runner placed too far stays there (progress never goes back). One
  // ahead counts AHEAD_DISCOUNT less: a runner placed short is moved on by the next fix anyway.
  let alternative = Infinity;
  for (const n of nodes) {
    if (n.c === null || Math.abs(n.d - end.d) <= AMBIGUOUS_DISTANCE_M) continue;
    alternative = Math.min(alternative, n.cost + (n.d > end.d ? AHEAD_DISCOUNT : 0));
  }
  const passes: (CourseCandidate | null)[] = new Array<CourseCandidate | null>(fixes.length);
  const distances: number[] = new Array<number>(fixes.length);
  let n: Node | null = end;
  for (let k = fixes.length - 1; k >= 0; k--) {
    passes[k] = n!.c;
    distances[k] = n!.d;
    n = n!.prev;
  }
  return { passes, distances, margin: alternative - end.cost };
}
