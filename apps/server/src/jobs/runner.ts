import { isDatabaseUnavailable } from '../db/errors';
import type { LiveEvent } from '../events/bus';
import type { JobLock } from './lock';

/**
 * Background work: a job runs in exactly one process of a cluster (the one holding its lock, lock.ts), on a
 * schedule, started and stopped with the app (jobs/plugin.ts). Its work is one call, `runOnce`, which tests make
 * directly.
 */
export interface Job {
  /** Unique; also names the job's lock across the cluster. */
  readonly name: string;
  /** Pause between the end of one run and the start of the next, while this process holds the job. */
  readonly everyMs: number;
  /** One run. The runner never starts it while it is running; `signal` is aborted when the app stops. */
  runOnce(signal?: AbortSignal): Promise<void>;
  /** Events after which the job runs at once rather than at its next turn. */
  wakeOn?(event: LiveEvent): boolean;
}

export interface JobRunnerOptions {
  lock: JobLock;
  log: { warn(obj: unknown, msg?: string): void };
  /** How often a process that does not hold a job tries to take it over (default 5 s). */
  retryMs?: number;
  /** Told of failures that mean the database cannot be reached (an outage is logged once, elsewhere). */
  onDatabaseUnavailable?(err: unknown): void;
}

interface Scheduled {
  job: Job;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  /** A wake-up arrived while the job was running: run again as soon as it ends. */
  again: boolean;
}

export class JobRunner {
  private readonly jobs = new Map<string, Scheduled>();
  private readonly abort = new AbortController();
  private started = false;
  private stopped = false;

  constructor(private readonly opts: JobRunnerOptions) {}

  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`A job named ${job.name} is already registered.`);
    this.jobs.set(job.name, { job, timer: null, running: null, again: false });
    if (this.started) this.schedule(this.jobs.get(job.name)!, 0);
  }

  /** Every job takes its first turn now: the process holding (or taking) its lock runs it. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    for (const s of this.jobs.values()) this.schedule(s, 0);
  }

  /** Runs the job soon if this process holds it (another process's runner is woken by the same event there). */
  wake(name: string): void {
    const s = this.jobs.get(name);
    if (!s || !this.started || this.stopped || !this.opts.lock.holds(name)) return;
    if (s.running) s.again = true;
    else this.schedule(s, 0);
  }

  /** Wakes the jobs that asked for this event. */
  notify(event: LiveEvent): void {
    for (const s of this.jobs.values()) if (s.job.wakeOn?.(event)) this.wake(s.job.name);
  }

  /** Whether this process runs the job now. */
  holds(name: string): boolean {
    return this.started && !this.stopped && this.opts.lock.holds(name);
  }

  /** Stops scheduling, lets running jobs finish (their signal is aborted), then gives the locks back. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    for (const s of this.jobs.values()) if (s.timer) clearTimeout(s.timer);
    await Promise.allSettled([...this.jobs.values()].map((s) => s.running));
    await this.opts.lock.close();
  }

  private schedule(s: Scheduled, ms: number) {
    if (this.stopped) return;
    if (s.timer) clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = null;
      if (s.running || this.stopped) return;
      s.running = this.turn(s.job).then((next) => {
        s.running = null;
        const again = s.again;
        s.again = false;
        this.schedule(s, again ? 0 : next);
      });
    }, ms);
    s.timer.unref();
  }

  /** One turn: take (or keep) the lock, run the job if held. Resolves to the pause before the next turn. */
  private async turn(job: Job): Promise<number> {
    const retryMs = this.opts.retryMs ?? 5000;
    try {
      if (!(await this.opts.lock.acquire(job.name))) return retryMs;
    } catch (err) {
      this.report(err, job, 'job lock unavailable; retrying');
      return retryMs;
    }
    try {
      await job.runOnce(this.abort.signal);
    } catch (err) {
      this.report(err, job, 'job run failed');
    }
    return job.everyMs;
  }

  private report(err: unknown, job: Job, msg: string) {
    if (isDatabaseUnavailable(err) && this.opts.onDatabaseUnavailable) this.opts.onDatabaseUnavailable(err);
    else this.opts.log.warn({ err, job: job.name }, msg);
  }
}
