/**
 * The most plausible sequence of passes for the runner's last few fixes: a small hidden Markov model decoded with
 * Viterbi. Hidden state per fix: which pass of the course (distance along it) the runner was on, or "not this fix"
 * (a GPS outlier, skipped at a fixed cost). Emission: Gaussian GPS error on the offset from the pass. Transition:
 * the progress between two fixes must be physically possible in the time between them (not back by more than noise,
 * not beyond the fastest plausible speed), and costs its disagreement with the runner's moving speed (`progressCost`:
 * Gaussian with the pace spread, a bounded cost for a stop). The place committed for a fix is the expected one over
 * the sequences about as plausible as the best (`posteriorMean`): at a switchback corner where two legs fit equally,
 * between them rather than a whole leg off. Parallel legs 25–40 m apart (switchbacks, a lollipop stem) are told apart
 * by which sequence of legs a runner can actually have run, not by the nearest leg of one fix.
 *
 * Speeds are in flat-equivalent metres per second (effort, `eta.ts`: Minetti's cost of the grade), so a runner who
 * climbed at 1 m/s may descend at 3–4 m/s without the descent looking like a jump; a step much faster than predicted
 * costs by the ratio, not the metres (`FAST_TAIL`), so a real fast stretch (or progress after a long gap) is believed.
 * A runner who stopped (a step well short of the prediction) is cheaper to keep stopped, and a step from a stop that
 * loops back to where the previous fix was (a turnaround, a village lap) costs LOOP_COST: the runner stays on the pass
 * they are on unless later fixes show they ran the loop.
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
  /** The fix's own position (absent in windows kept from before it was recorded). */
  lat?: number;
  lon?: number;
  /** The accuracy the device reported with the fix (metres), if any. */
  accuracyM?: number;
}

/** GPS error (σ) to weigh a fix with: GPS_SIGMA_M, or more when the device says its fix is worse. */
export function fixSigma(f: WindowFix): number {
  const a = f.accuracyM;
  return a !== undefined && Number.isFinite(a) && a > GPS_SIGMA_M
    ? Math.min(a, MAX_ACCURACY_SIGMA_M)
    : GPS_SIGMA_M;
}

/** A reported accuracy beyond this is treated as this (the fix is still near the course to count at all). */
const MAX_ACCURACY_SIGMA_M = 100;

export interface DecodeParams {
  /** Where the runner was before the window's first fix (decided, not re-decided). */
  anchor: ProgressPoint;
  /** Expected moving speed (m/s), for the cost of each step. */
  speedMps: number;
  /** Whether speedMps is the runner's own (measured) or a default. */
  speedKnown: boolean;
  /** The runner's best recent speed (m/s) or null before it is known: bounds the newest fix's advance. */
  cruiseMps: number | null;
  /** Fastest plausible progress at all (m/s): bounds every step. */
  maxSpeedMps: number;
  /**
   * Effort (flat-equivalent metres, `eta.ts`) from the start to a distance: the speeds above are in flat metres per
   * second, so a runner climbing at 1 m/s may descend at 3 m/s. Absent: the distance itself (a flat course).
   */
  effort?: (distanceM: number) => number;
}

/** GPS error (σ, metres) assumed when weighing how well a pass fits a fix. */
export const GPS_SIGMA_M = 15;
/** GPS noise (σ ≈ 10 m on each of two fixes) can put a runner this far behind their last position. */
export const BACK_TOLERANCE_M = 60;
/** Slack on the forward bound for noise and a short burst above maxSpeed. */
export const FORWARD_TOLERANCE_M = 100;
/** Spread (σ) of one step's progress around the prediction: GPS noise on two fixes, plus the pace spread. */
const STEP_SIGMA_M = 25;
const STEP_SIGMA_FRACTION = 0.15;
/** ...before the runner's own moving speed is known (the default speed may be far off). */
const UNKNOWN_SIGMA_FRACTION = 0.5;
/** Beyond this many σ the step cost grows linearly. */
const HUBER_Z = 3;
const HUBER_Z_UNKNOWN = 1.5;
/** Beyond h σ ahead of the prediction, the cost grows by this much per e-fold of the excess. */
const FAST_TAIL = 4;
/** Cost of a step short of the prediction because the runner stopped for part of it. */
const STOP_COST = 2;
/** ...after a step that was a stop already, advancing at most STAY_M (a runner at an aid station stays a while). */
const STOP_STAY_COST = 0.25;
const STAY_M = 60;
/** A step this much short of the prediction is a stop. */
const STOPPED_FRACTION = 0.5;
/**
 * Two fixes within LOOP_NEAR_M of each other (about 2 σ of the difference of two fixes), less than LOOP_MAX_S apart,
 * with a step of more than LOOP_MIN_M along the course between them: a loop back to the same spot costs LOOP_COST
 * (about what standing there costs, so the newest such fix waits for the next one to tell).
 */
const LOOP_NEAR_M = 30;
const LOOP_MIN_M = 100;
const LOOP_MAX_S = 900;
const LOOP_COST = 2.5;
/** GPS noise on the progress between two fixes of a runner standing still (σ, metres). */
const STOP_NOISE_M = 20;
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
  /** The fix this progress belongs to (NaN for the anchor). */
  lat: number;
  lon: number;
  /** This step was a stop (well short of the prediction): the runner is more likely still stopped at the next. */
  stopped: boolean;
}

export interface Decoded {
  /** Per window fix: the pass of the most plausible sequence, or null (the fix is not believed). */
  passes: (CourseCandidate | null)[];
  /** Per window fix: the progress on that sequence (carried over a skipped fix). */
  distances: number[];
  /**
   * Per window fix: the expected progress over the plausible sequences (`posteriorMean`) for the newest two fixes
   * (the ones a decision can still be pending for), else the same as `distances`.
   */
  means: number[];
  /**
   * How much more the best sequence putting the newest fix elsewhere (more than AMBIGUOUS_DISTANCE_M away) costs
   * (nats; an alternative ahead AHEAD_DISCOUNT more; Infinity when there is none): small means the newest fix
   * alone cannot tell where the runner is.
   */
  margin: number;
  /** The same for the fix before the newest (Infinity when it has no other place). */
  marginBefore: number;
}

/** How far from the best place for a fix an alternative is averaged in (`posteriorMean`). */
const MEAN_SPAN_M = 250;
/** ...and how much less plausible (nats) it may be: a clearly less plausible place only blurs a clear answer. */
const MEAN_COST = 0.7;

/** An alternative ahead of the best place weighs this much less (nats) than one behind it. */
const AHEAD_DISCOUNT = 1.5;
/** Two places for the newest fix further apart than this are different answers, not noise. */
const AMBIGUOUS_DISTANCE_M = 100;

export function emissionCost(c: CourseCandidate, sigmaM: number = GPS_SIGMA_M): number {
  // Past the finish, the distance from the course's last segment carried straight on (a runner who ran through).
  const beyond = c.alongUnclampedM - c.alongM;
  const offset = beyond > 0 ? Math.sqrt(Math.max(0, c.offsetM * c.offsetM - beyond * beyond)) : c.offsetM;
  const z = offset / sigmaM;
  // A fix reporting a larger error (its own accuracy) weighs less, and costs its σ's normalisation.
  return 0.5 * z * z + Math.log(sigmaM / GPS_SIGMA_M);
}

function stepCost(
  from: Node,
  c: CourseCandidate,
  f: WindowFix,
  p: DecodeParams,
  newest: boolean,
  prev: WindowFix | null,
): number {
  const t = f.t;
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
  // The advance in effort: what the runner's speed predicts (a descent is covered faster than a climb).
  const E = p.effort;
  const de = E === undefined || dd <= 0 ? dd : E(c.alongM) - E(from.d);
  if (newest) {
    // The runner's own speed: the best of their recent cruise and this path's average since the anchor.
    const pathDt = (from.t - p.anchor.t) / 1000;
    const pathEffort = E === undefined ? from.d - p.anchor.distanceM : E(from.d) - E(p.anchor.distanceM);
    const pathSpeed = pathDt >= 60 ? pathEffort / pathDt : 0;
    const known = p.cruiseMps !== null || pathDt >= 60;
    if (known) {
      const limit = Math.max(p.cruiseMps ?? 0, pathSpeed, MIN_LIMIT_SPEED_MPS);
      if (dd > JUMP_SLACK_M && de > JUMP_SPEED_FACTOR * limit * boundDt) return Infinity;
    }
    if (c.offsetM > SUSPICIOUS_OFFSET_M && de > predicted + JUMP_SLACK_M) return Infinity;
  }
  return (
    progressCost(de, predicted, p.speedKnown, from.stopped && dd <= STAY_M ? STOP_STAY_COST : STOP_COST) +
    (from.stopped && dd > LOOP_MIN_M && dt <= LOOP_MAX_S && nearlySamePlace(from, f, dd) ? LOOP_COST : 0)
  );
}

/**
 * Whether the fix is about where the step's previous fix was while the step advances `dd` along the course: the
 * runner stood still, or ran a loop (a turnaround, a village lap) back to the same spot. Both are possible; standing
 * is what the fixes show, and a runner put a loop ahead could never be brought back (progress never goes back).
 */
function nearlySamePlace(from: Node, f: WindowFix, dd: number): boolean {
  if (f.lat === undefined || f.lon === undefined || Number.isNaN(from.lat)) return false;
  const ky = 111_320;
  const kx = ky * Math.cos((f.lat * Math.PI) / 180);
  const apart = Math.hypot((f.lon - from.lon) * kx, (f.lat - from.lat) * ky);
  return apart <= LOOP_NEAR_M && dd > apart + LOOP_MIN_M;
}

/**
 * Cost (nats) of advancing `dd` metres where the runner's moving speed predicts `predicted`. Moving: Gaussian around
 * the prediction, σ = GPS noise on two fixes plus the runner's pace spread (a known speed) or a wide share of it
 * (not known yet); quadratic, so of two ways to split the same distance over two steps the even one wins (a fix
 * put on the neighbouring leg makes one step long and the next one short). Beyond 3 σ the cost grows linearly (a
 * wrong speed estimate must not pin anyone). Falling short may also be a stop (an aid station, a photo): at most
 * STOP_COST whatever the shortfall.
 */
export function progressCost(
  dd: number,
  predicted: number,
  speedKnown: boolean,
  stopCost: number = STOP_COST,
): number {
  const sigma = speedKnown
    ? STEP_SIGMA_M + STEP_SIGMA_FRACTION * predicted
    : STEP_SIGMA_M + UNKNOWN_SIGMA_FRACTION * predicted;
  const z = (dd - predicted) / sigma;
  const a = Math.abs(z);
  const h = speedKnown ? HUBER_Z : HUBER_Z_UNKNOWN;
  if (z > h) {
    // Faster than the prediction by more than h σ: a change of terrain or pace (a runner's speed between two fixes
    // varies threefold on a mountain), costed by the ratio, not the metres: slowly enough that a real fast stretch
    // (a descent, a flat after a climb) is believed rather than skipped.
    return 0.5 * h * h + FAST_TAIL * Math.log((dd - predicted) / (h * sigma));
  }
  const moving = a <= h ? 0.5 * z * z : h * a - 0.5 * h * h;
  if (z >= 0) return moving;
  // Stopped for part of the step: anywhere short of the prediction, but not back beyond GPS noise.
  const back = Math.min(0, dd) / STOP_NOISE_M;
  return Math.min(moving, stopCost + 0.5 * back * back);
}

/** Viterbi over the window (oldest first). */
export function decodeWindow(fixes: readonly WindowFix[], p: DecodeParams): Decoded {
  const root: Node = {
    d: p.anchor.distanceM,
    t: p.anchor.t,
    cost: 0,
    prev: null,
    c: null,
    lat: NaN,
    lon: NaN,
    stopped: false,
  };
  let nodes: Node[] = [root];
  /** The layer of the fix before the newest. */
  let before: Node[] = [];
  for (let k = 0; k < fixes.length; k++) {
    before = nodes;
    const f = fixes[k];
    const newest = k === fixes.length - 1;
    const next: Node[] = [];
    let min = Infinity;
    for (const c of f.cands) {
      let best: Node | null = null;
      let bestCost = Infinity;
      for (const n of nodes) {
        const cost = n.cost + stepCost(n, c, f, p, newest, k > 0 ? fixes[k - 1] : null);
        if (cost < bestCost) {
          bestCost = cost;
          best = n;
        }
      }
      if (best === null) continue;
      const cost = bestCost + emissionCost(c, fixSigma(f));
      const d = Math.max(c.alongM, best.d);
      const stopped = d - best.d < STOPPED_FRACTION * p.speedMps * ((f.t - best.t) / 1000);
      next.push({ d, t: f.t, cost, prev: best, c, lat: f.lat ?? NaN, lon: f.lon ?? NaN, stopped });
      if (cost < min) min = cost;
    }
    for (const n of nodes) {
      const cost = n.cost + SKIP_COST;
      next.push({ d: n.d, t: n.t, cost, prev: n, c: null, lat: n.lat, lon: n.lon, stopped: n.stopped });
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
  const means = distances.slice();
  const last = fixes.length - 1;
  if (passes[last] !== null && hasAlternative(nodes, end.d, end.cost)) {
    means[last] = posteriorMean(
      nodes.map((x) => [x, x.cost] as const),
      end.d,
      end.cost,
    );
  }
  // The fix before the newest (a node's cost there is at most what its best sequence on costs).
  if (last >= 1 && passes[last - 1] !== null && hasAlternative(before, distances[last - 1], end.cost)) {
    // Each of its places with the best way on to the newest fix (or skipping it).
    const f = fixes[last];
    const weighed = before.map((a) => {
      let cost = a.cost + SKIP_COST;
      for (const c of f.cands) {
        cost = Math.min(
          cost,
          a.cost + stepCost(a, c, f, p, true, fixes[last - 1]) + emissionCost(c, fixSigma(f)),
        );
      }
      return [a, cost] as const;
    });
    means[last - 1] = posteriorMean(weighed, distances[last - 1], end.cost);
  }
  // The same for the fix before the newest: the best sequence placing it elsewhere (through the newest fix).
  let alternativeBefore = Infinity;
  if (last >= 1 && passes[last - 1] !== null) {
    const bestBefore = distances[last - 1];
    for (const x of nodes) {
      const a = x.prev;
      if (a === null || a.c === null || a.t !== fixes[last - 1].t) continue;
      if (Math.abs(a.d - bestBefore) <= AMBIGUOUS_DISTANCE_M) continue;
      alternativeBefore = Math.min(alternativeBefore, x.cost + (a.d > bestBefore ? AHEAD_DISCOUNT : 0));
    }
  }
  return {
    passes,
    distances,
    means,
    margin: alternative - end.cost,
    marginBefore: alternativeBefore - end.cost,
  };
}

/** Whether any node could be averaged in by posteriorMean (most fixes: none, and no need to weigh them). */
function hasAlternative(nodes: readonly Node[], bestD: number, bestCost: number): boolean {
  for (const a of nodes) {
    if (a.c === null || a.cost - bestCost > MEAN_COST) continue;
    const apart = Math.abs(a.d - bestD);
    if (apart >= AMBIGUOUS_DISTANCE_M && apart <= MEAN_SPAN_M) return true;
  }
  return false;
}

/**
 * The expected progress at a fix: its places (nodes) on the sequences through it, each weighed by how plausible the
 * best sequence through it is (e^-cost), within MEAN_SPAN_M of the best place. Two passes about as plausible (a
 * turnaround, the corner of a switchback: the same spot on both legs) give the place between them, never off by the
 * whole distance between the legs.
 */
function posteriorMean(
  weighed: readonly (readonly [Node, number])[],
  bestD: number,
  bestCost: number,
): number {
  let sw = 0;
  let sd = 0;
  for (const [a, cost] of weighed) {
    const apart = Math.abs(a.d - bestD);
    // Places closer than AMBIGUOUS_DISTANCE_M are the same answer give or take noise: the best one stands.
    if (a.c === null || (apart > 0 && apart < AMBIGUOUS_DISTANCE_M) || apart > MEAN_SPAN_M) continue;
    if (cost - bestCost > MEAN_COST) continue;
    const w = Math.exp(bestCost - cost);
    sw += w;
    sd += w * a.d;
  }
  return sw > 0 ? sd / sw : bestD;
}
