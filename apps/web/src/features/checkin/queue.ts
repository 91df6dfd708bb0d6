import type { CheckinAnswer, CheckinBody, CheckinKind } from '@racebeacon/domain/checkin';

/**
 * The volunteer's outbox. Every entry is stored on the phone first (IndexedDB in the browser) with an EntryId made
 * on the phone, shown as "waiting to send", and sent one at a time, oldest first, whenever the network is there:
 * right after it is added, when the browser says it is back online, and by a retry timer with back-off while
 * anything is waiting. The server answers a repeat of an EntryId with its first answer, so an entry whose answer
 * was lost on the way is simply sent again; one send at a time per page keeps the phone from sending it twice at
 * once.
 */

export type EntryState = 'waiting' | 'sent' | 'refused';

export interface QueuedEntry {
  EntryId: string;
  /** The link the entry was made on: a phone may hold entries of several links. */
  token: string;
  BibNumber: string;
  Kind: CheckinKind;
  /** When the volunteer tapped, not when it was sent. */
  Time: string;
  state: EntryState;
  /** Sends that failed for want of network or server (for the back-off). */
  attempts: number;
  /** The server's answer once sent. */
  answer?: CheckinAnswer;
  /** Why the server refused it (unknown bib, revoked link…): shown, never retried. */
  message?: string;
  /** The refusal's error code (`status_kept`, `race_ended`, `checkin_time`…): the page words the known ones. */
  error?: string;
}

/** Where entries are kept between page loads. */
export interface EntryStore {
  list(token: string): Promise<QueuedEntry[]>;
  put(entry: QueuedEntry): Promise<void>;
}

/** What a failed send rejects with (the API client's ApiFailure: status 0 when the network failed). */
export interface SendFailure {
  status: number;
  error?: string;
  message?: string;
}

export interface QueueOptions {
  token: string;
  store: EntryStore;
  send(token: string, body: CheckinBody): Promise<CheckinAnswer>;
  newId?: () => string;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** Waits before retrying after `attempts` failed sends in a row: 2 s, 4 s, 8 s … at most a minute. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 2000 * 2 ** Math.max(0, attempts - 1));
}

/** Whether a failed send may work later (no network, server busy or down) rather than being refused for good. */
export function isTransient(failure: SendFailure): boolean {
  return failure.status === 0 || failure.status === 408 || failure.status === 429 || failure.status >= 500;
}

export class CheckinQueue {
  private entries: QueuedEntry[] = [];
  private readonly listeners = new Set<() => void>();
  private flushing: Promise<void> | null = null;
  private again = false;
  private timer: unknown = null;
  /** Failed sends in a row; reset by a success or by the browser going online. */
  private failures = 0;
  private disposed = false;
  private readonly newId: () => string;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly opts: QueueOptions) {
    this.newId = opts.newId ?? (() => crypto.randomUUID());
    this.now = opts.now ?? Date.now;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** Reads the stored entries of this link and sends whatever is still waiting. */
  async load(): Promise<void> {
    this.entries = await this.opts.store.list(this.opts.token);
    this.changed();
    void this.flush();
  }

  /** Newest first. */
  list(): QueuedEntry[] {
    return [...this.entries].sort((a, b) => (a.Time < b.Time ? 1 : a.Time > b.Time ? -1 : 0));
  }

  waitingCount(): number {
    return this.entries.filter((e) => e.state === 'waiting').length;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stores a new entry (time: now) and tries to send it at once. */
  async add(bibNumber: string, kind: CheckinKind): Promise<QueuedEntry> {
    const entry: QueuedEntry = {
      EntryId: this.newId(),
      token: this.opts.token,
      BibNumber: bibNumber.trim(),
      Kind: kind,
      Time: new Date(this.now()).toISOString(),
      state: 'waiting',
      attempts: 0,
    };
    await this.opts.store.put(entry);
    this.entries.push(entry);
    this.changed();
    void this.flush();
    return entry;
  }

  /** The browser is online again: forget the back-off and send now. */
  online(): void {
    this.failures = 0;
    void this.flush();
  }

  /**
   * Sends the waiting entries one at a time, oldest first. A single flush runs at a time; a call meanwhile makes it
   * go round once more. Stops at the first failure that may pass (no network, server down) and retries later.
   */
  flush(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.cancelTimer();
    this.flushing = this.run().finally(() => {
      this.flushing = null;
      if (this.again && !this.disposed) {
        this.again = false;
        void this.flush();
      } else {
        this.scheduleRetry();
      }
    });
    return this.flushing;
  }

  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
    this.listeners.clear();
  }

  private async run(): Promise<void> {
    for (;;) {
      const next = this.entries
        .filter((e) => e.state === 'waiting')
        .sort((a, b) => (a.Time < b.Time ? -1 : a.Time > b.Time ? 1 : 0))[0];
      if (!next || this.disposed) return;
      const body: CheckinBody = {
        EntryId: next.EntryId,
        BibNumber: next.BibNumber,
        Kind: next.Kind,
        Time: next.Time,
      };
      let updated: QueuedEntry;
      try {
        const answer = await this.opts.send(this.opts.token, body);
        this.failures = 0;
        updated = { ...next, state: 'sent', answer, message: undefined };
      } catch (err) {
        const failure = toFailure(err);
        if (isTransient(failure)) {
          this.failures++;
          await this.replace({ ...next, attempts: next.attempts + 1 });
          return;
        }
        updated = {
          ...next,
          state: 'refused',
          message: failure.message || `Refused (${failure.status}).`,
          ...(typeof failure.error === 'string' ? { error: failure.error } : {}),
        };
      }
      await this.replace(updated);
    }
  }

  private async replace(entry: QueuedEntry): Promise<void> {
    await this.opts.store.put(entry);
    this.entries = this.entries.map((e) => (e.EntryId === entry.EntryId ? entry : e));
    this.changed();
  }

  private scheduleRetry(): void {
    if (this.disposed || this.timer !== null || this.waitingCount() === 0) return;
    this.timer = this.setTimer(
      () => {
        this.timer = null;
        void this.flush();
      },
      retryDelayMs(Math.max(1, this.failures)),
    );
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  private changed(): void {
    for (const fn of [...this.listeners]) fn();
  }
}

function toFailure(err: unknown): SendFailure {
  if (err && typeof err === 'object' && typeof (err as SendFailure).status === 'number')
    return err as SendFailure;
  return { status: 0, message: String(err) };
}

/** Entries in memory only (tests; a browser without IndexedDB keeps them for the page's life). */
export function memoryStore(): EntryStore & { rows: Map<string, QueuedEntry> } {
  const rows = new Map<string, QueuedEntry>();
  return {
    rows,
    list: async (token) => [...rows.values()].filter((e) => e.token === token).map((e) => ({ ...e })),
    put: async (entry) => void rows.set(entry.EntryId, { ...entry }),
  };
}
