import { courseFromMetres, gaussian, seededRandom, type CoursePoint } from '@racebeacon/domain';
import { CourseModel } from './course-model';

/**
 * Moves a race's runners along its course and reports them as phones running Traccar Client would: real OsmAnd
 * HTTP requests with each device's tracking key, a fix every 2.5 minutes of race time, GPS noise, and coverage
 * dropouts after which the buffered fixes are uploaded oldest first. `speed` compresses time: at 10 a runner
 * covers ten minutes of race in one real minute (fix timestamps stay real, so the server accepts them).
 */
export interface SimRunner {
  trackingKey: string;
  label?: string;
}

export interface SimulatorOptions {
  /** Server base URL, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  course: CoursePoint[];
  runners: SimRunner[];
  /** When the race clock started (real time). */
  raceStart: Date;
  speed?: number;
  /** Race time between fixes, seconds (2.5 minutes like SPOT and a battery-saving Traccar Client). */
  intervalS?: number;
  seed?: number;
  /** Fixes older than this (real time) are not back-filled on start. */
  maxBackfillMs?: number;
  log?: (msg: string) => void;
}

interface Fix {
  ts: number; // epoch ms (real)
  lat: number;
  lon: number;
  ele: number | null;
  speedMs: number;
  batt: number;
}

interface RunnerState {
  r: SimRunner;
  random: () => number;
  /** Seconds per effort-kilometre on fresh legs. */
  pace: number;
  /** Slow-down per hour of racing (fraction). */
  fatigue: number;
  phaseS: number;
  nextK: number;
  battery: number;
  drainPerFix: number;
  /** Fixes not yet delivered (out of coverage or server unreachable), oldest first. */
  buffer: Fix[];
  dropoutLeft: number;
  finished: boolean;
  sending: boolean;
}

export class RaceSimulator {
  private readonly course: CourseModel;
  private readonly speed: number;
  private readonly intervalS: number;
  private readonly runners: RunnerState[];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private inFlight = new Set<Promise<void>>();
  sent = 0;
  failed = 0;

  constructor(private readonly opts: SimulatorOptions) {
    this.course = new CourseModel(opts.course);
    this.speed = opts.speed ?? 1;
    this.intervalS = opts.intervalS ?? 150;
    const random = seededRandom(opts.seed ?? 42);
    this.runners = opts.runners.map((r, i) => {
      const own = seededRandom(Math.floor(random() * 2 ** 31) + i);
      // Flat-equivalent paces from about 4:45 to 9:30 min/km: from the podium to the back of the pack.
      const pace = 285 + 285 * own() ** 1.3;
      return {
        r,
        random: own,
        pace,
        fatigue: 0.02 + own() * 0.06,
        phaseS: own() * this.intervalS,
        nextK: 0,
        battery: 70 + own() * 30,
        drainPerFix: 0.08 + own() * 0.12,
        buffer: [],
        dropoutLeft: 0,
        finished: false,
        sending: false,
      };
    });
  }

  /** Race seconds elapsed at a real time. */
  private raceSeconds(realMs: number) {
    return ((realMs - this.opts.raceStart.getTime()) / 1000) * this.speed;
  }

  private realMsAt(raceS: number) {
    return this.opts.raceStart.getTime() + (raceS / this.speed) * 1000;
  }

  /** Effort metres covered after `t` race seconds (pace slows with fatigue). */
  private effortAt(s: RunnerState, t: number) {
    const hours = t / 3600;
    // integral of 1 / (pace * (1 + fatigue * h)) over time, in metres
    return ((1000 * 3600) / (s.pace * s.fatigue)) * Math.log(1 + s.fatigue * hours);
  }

  start() {
    const backfillFrom = Date.now() - (this.opts.maxBackfillMs ?? 2 * 3600_000);
    for (const s of this.runners) {
      // Skip fixes older than the back-fill window.
      const from = Math.max(0, this.raceSeconds(backfillFrom));
      s.nextK = Math.max(0, Math.ceil((from - s.phaseS) / this.intervalS));
    }
    this.tick();
    const everyMs = Math.max(250, Math.min(5000, ((this.intervalS / this.speed) * 1000) / 10));
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  get finishedCount() {
    return this.runners.filter((s) => s.finished).length;
  }

  private tick() {
    if (this.stopped) return;
    const nowRace = this.raceSeconds(Date.now());
    for (const s of this.runners) {
      while (!s.finished) {
        const t = s.phaseS + s.nextK * this.intervalS;
        if (t > nowRace) break;
        s.nextK++;
        const fix = this.fixAt(s, t);
        if (!fix) continue;
        if (s.dropoutLeft > 0) s.dropoutLeft--;
        else if (s.random() < 0.03) s.dropoutLeft = 2 + Math.floor(s.random() * 8); // out of coverage for a while
        s.buffer.push(fix);
      }
      if (!s.sending && s.buffer.length && s.dropoutLeft === 0) this.flush(s);
    }
  }

  private fixAt(s: RunnerState, t: number): Fix | null {
    if (t < 0) return null;
    const pos = this.course.at(this.effortAt(s, t));
    const prev = this.course.at(this.effortAt(s, Math.max(0, t - 30)));
    if (pos.finished) s.finished = true;
    // GPS noise: a few metres, occasionally a worse fix under trees or cliffs.
    const sigma = s.random() < 0.05 ? 25 : 4;
    const north = gaussian(s.random) * sigma;
    const east = gaussian(s.random) * sigma;
    // Metres east and north of the true position, converted with the domain's geodesy.
    const [[lon, lat]] = courseFromMetres([[east, north]], { lat: pos.lat, lon: pos.lon }).points;
    s.battery = Math.max(1, s.battery - s.drainPerFix);
    return {
      ts: Math.round(this.realMsAt(t)),
      lat,
      lon,
      ele: pos.ele === null ? null : pos.ele + gaussian(s.random) * 3,
      speedMs: pos.finished ? 0 : (pos.distance - prev.distance) / 30,
      batt: s.battery,
    };
  }

  /** Uploads a runner's buffered fixes one by one, oldest first (as Traccar Client does). */
  private flush(s: RunnerState) {
    s.sending = true;
    const p = (async () => {
      while (s.buffer.length && !this.stopped) {
        const f = s.buffer[0];
        const q = new URLSearchParams({
          id: s.r.trackingKey,
          timestamp: String(Math.floor(f.ts / 1000)),
          lat: f.lat.toFixed(6),
          lon: f.lon.toFixed(6),
          speed: (f.speedMs * 1.943844).toFixed(2), // knots, as the OsmAnd protocol sends
          altitude: f.ele === null ? '' : f.ele.toFixed(1),
          batt: f.batt.toFixed(0),
          accuracy: '0',
        });
        let status = 0;
        try {
          const res = await fetch(`${this.opts.baseUrl}/api/ingest/osmand?${q}`, {
            method: 'POST',
            signal: AbortSignal.timeout(15_000),
          });
          status = res.status;
          await res.arrayBuffer();
        } catch {
          status = 0;
        }
        if (status >= 200 && status < 300) {
          this.sent++;
          s.buffer.shift();
        } else if (status === 400) {
          this.failed++;
          s.buffer.shift(); // refused for good (unknown key, invalid fix): a real client would retry forever
          this.opts.log?.(`fix refused (400) for ${s.r.label ?? 'runner'}`);
        } else {
          this.failed++;
          break; // server unreachable or busy: keep the fix, retry on a later tick
        }
      }
    })().finally(() => {
      s.sending = false;
      this.inFlight.delete(p);
    });
    this.inFlight.add(p);
  }
}
