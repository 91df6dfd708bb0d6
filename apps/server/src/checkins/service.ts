import { createHash, randomBytes } from 'node:crypto';
import {
  checkinRaceRefusal,
  checkinStatusDecision,
  sameCheckin,
  type CheckinAnswer,
  type CheckinInput,
  type CheckinLink,
  type CheckinPage,
  type CreatedCheckinLink,
  type RunnerSplits,
} from '@racebeacon/domain';
import type { Db } from '../db/client';
import { conflict, HttpError, notFound } from '../lib/errors';
import type { RaceEvents } from '../lib/race-events';
import { isoOrNull } from '../lib/time';
import * as racesRepo from '../races/repository';
import type { AuthUser } from '../types';
import type { CheckinEvents } from './events';
import * as repo from './repository';
import { setDnfAtCheckpoint } from './dnf';

/** The volunteer page's path; the token is the whole secret. */
export const checkinPath = (token: string) => `/checkin/${token}`;

/** 32 characters of base64url: 192 random bits. Only its SHA-256 is stored. */
const newToken = () => randomBytes(24).toString('base64url');
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{32}$/;

const badToken = () =>
  new HttpError(
    401,
    'checkin_link_invalid',
    'This check-in link is not valid (it was revoked or mistyped). Ask the race director for a new link.',
  );

function toLink(r: repo.LinkRow): CheckinLink {
  return {
    LinkId: r.id,
    RaceId: r.raceId,
    CheckpointId: r.checkpointId,
    CheckpointName: r.checkpointName,
    Label: r.label,
    CreatedAt: r.createdAt.toISOString(),
    CreatedBy: r.createdBy,
    RevokedAt: isoOrNull(r.revokedAt),
    Entries: r.entries,
  };
}

export interface CheckinServiceOptions {
  db: Db;
  raceEvents: RaceEvents;
  checkinEvents: CheckinEvents;
  /** The live race's splits (a finish seen by GPS); without it only a finish check-in counts. */
  raceSplits?: (raceId: number) => Promise<Pick<RunnerSplits, 'RunnerId' | 'Splits'>[]>;
  now?: () => number;
}

/** The answer given to a check-in (a repeat gets the stored first answer) and whether this call stored it. */
export interface CheckinResult {
  answer: CheckinAnswer;
  created: boolean;
}

/**
 * Aid-station check-ins: the director's links (created with a random token shown once and stored as a hash,
 * listed, revoked) and the volunteer's entries. An entry is stored once per EntryId and race; a repeat is answered
 * with the first answer. A stored entry is a fix of the live race at the checkpoint (announced after commit); a
 * `dnf` also sets the runner's status, in the same transaction.
 */
export class CheckinService {
  private readonly db: Db;
  private readonly now: () => number;

  constructor(private readonly opts: CheckinServiceOptions) {
    this.db = opts.db;
    this.now = opts.now ?? Date.now;
  }

  // ---------------------------------------------------------------- director

  /** The race when the caller is its director or an admin; 404 otherwise. */
  private async raceFor(user: AuthUser, raceId: number) {
    const race = await racesRepo.findRace(this.db, raceId);
    if (!race || (race.directorId !== user.id && !user.isAdmin))
      throw notFound(`Race ${raceId} was not found.`);
    return race;
  }

  async createLink(
    user: AuthUser,
    raceId: number,
    checkpointId: number,
    label: string | null,
  ): Promise<CreatedCheckinLink> {
    await this.raceFor(user, raceId);
    const checkpoint = await repo.findCheckpoint(this.db, raceId, checkpointId);
    if (!checkpoint)
      throw notFound(`Checkpoint ${checkpointId} was not found in race ${raceId}.`, 'checkpoint_not_found');
    const token = newToken();
    const linkId = await repo.insertLink(this.db, {
      raceId,
      checkpointId,
      tokenHash: hashToken(token),
      label: label || null,
      createdBy: user.name ?? user.email ?? user.id,
    });
    const [row] = await repo.listLinks(this.db, raceId, linkId);
    return { ...toLink(row), Url: checkinPath(token) };
  }

  async listLinks(user: AuthUser, raceId: number): Promise<CheckinLink[]> {
    await this.raceFor(user, raceId);
    return (await repo.listLinks(this.db, raceId)).map(toLink);
  }

  /** Revokes a link: its token is refused from now on (401). Revoking twice keeps the first time. */
  async revokeLink(user: AuthUser, raceId: number, linkId: number): Promise<CheckinLink> {
    await this.raceFor(user, raceId);
    if (!(await repo.revokeLink(this.db, raceId, linkId, new Date(this.now()))))
      throw notFound(`Check-in link ${linkId} was not found in race ${raceId}.`, 'checkin_link_not_found');
    const [row] = await repo.listLinks(this.db, raceId, linkId);
    return toLink(row);
  }

  // ---------------------------------------------------------------- volunteer

  private async activeLink(token: string): Promise<repo.ActiveLink> {
    if (!TOKEN_FORMAT.test(token)) throw badToken();
    const link = await repo.findActiveLink(this.db, hashToken(token));
    if (!link) throw badToken();
    return link;
  }

  async page(token: string): Promise<CheckinPage> {
    const link = await this.activeLink(token);
    const runners = await repo.listBibRunners(this.db, link.raceId);
    return {
      RaceId: link.raceId,
      RaceName: link.raceName,
      CheckpointId: link.checkpoint.id,
      CheckpointName: link.checkpoint.name,
      DistanceKm: Math.round(link.checkpoint.distanceM / 10) / 100,
      Runners: runners.map((r) => ({
        RunnerId: r.id,
        BibNumber: r.bibNumber!,
        FirstName: r.firstName,
        LastName: r.lastName,
        Status: r.status,
      })),
    };
  }

  /** The stored first answer to this EntryId, when the body is the same entry; 409 when the id was reused. */
  private repeatAnswer(entry: repo.EntryRow, body: CheckinInput): CheckinAnswer {
    const stored = { BibNumber: entry.bibNumber, Kind: entry.kind, Time: entry.time.toISOString() };
    if (!sameCheckin(stored, body) || !entry.answer)
      throw conflict(
        `EntryId ${body.EntryId} was already used for another entry (bib ${entry.bibNumber}, ${entry.kind}).`,
        'entry_id_reused',
      );
    return entry.answer as unknown as CheckinAnswer;
  }

  /** Whether the runner finished: checked in at the finish, or past it in the live race (GPS). */
  private async finished(raceId: number, runnerId: number): Promise<boolean> {
    if (await repo.hasFinishCheckin(this.db, raceId, runnerId)) return true;
    const finishId = this.opts.raceSplits ? await repo.findFinishCheckpointId(this.db, raceId) : null;
    if (finishId === null) return false;
    let splits: Pick<RunnerSplits, 'RunnerId' | 'Splits'>[];
    try {
      splits = await this.opts.raceSplits!(raceId);
    } catch (err) {
      // A race the live state does not hold (not approved): no GPS finish known.
      if (err instanceof HttpError && err.statusCode === 404) return false;
      throw err;
    }
    return !!splits.find((s) => s.RunnerId === runnerId)?.Splits.some((x) => x.CheckpointId === finishId);
  }

  async checkin(token: string, body: CheckinInput): Promise<CheckinResult> {
    const link = await this.activeLink(token);
    const { raceId, checkpoint } = link;
    const existing = await repo.findEntry(this.db, raceId, body.EntryId);
    if (existing) return { answer: this.repeatAnswer(existing, body), created: false };

    const nowMs = this.now();
    const timeMs = Date.parse(body.Time);
    // After End Race nothing from a link changes results; a time before the start (or a day old with no start) is a
    // wrong clock. The refusal is final for the volunteer's outbox (4xx), which shows the message.
    const raceRefusal = checkinRaceRefusal(timeMs, nowMs, {
      startTimeMs: link.startTime?.getTime() ?? null,
      clockStartedMs: link.clockStartedAt?.getTime() ?? null,
      endedMs: link.clockStoppedAt?.getTime() ?? (link.hasFinished ? nowMs : null),
    });
    if (raceRefusal) throw new HttpError(raceRefusal.status, raceRefusal.error, raceRefusal.message);
    const runner = await repo.findBibRunner(this.db, raceId, body.BibNumber);
    if (!runner)
      throw notFound(
        `No runner wears bib ${body.BibNumber} in this race. Check the number and try again.`,
        'bib_not_found',
      );

    // A DNF never downgrades what a person set (DSQ, DNS; a DNF keeps its first record) or a finish.
    const finished = body.Kind === 'dnf' && (await this.finished(raceId, runner.id));
    const decision = checkinStatusDecision(body.Kind, { status: runner.status, finished });
    if (decision.refused)
      throw new HttpError(
        decision.refused.status,
        decision.refused.error,
        `Bib ${body.BibNumber}: ${decision.refused.message}`,
      );

    const time = new Date(timeMs);
    const outcome = await this.db.transaction(async (tx) => {
      let status = runner.status;
      const answer: CheckinAnswer = {
        EntryId: body.EntryId,
        RaceId: raceId,
        CheckpointId: checkpoint.id,
        CheckpointName: checkpoint.name,
        RunnerId: runner.id,
        BibNumber: body.BibNumber,
        FirstName: runner.firstName,
        LastName: runner.lastName,
        Kind: body.Kind,
        Time: time.toISOString(),
        ReceivedAt: new Date(nowMs).toISOString(),
        Status: decision.setsDnf ? 'DNF' : status,
      };
      const inserted = await repo.insertEntryOnce(tx, {
        entryId: body.EntryId,
        linkId: link.linkId,
        raceId,
        checkpointId: checkpoint.id,
        runnerId: runner.id,
        bibNumber: body.BibNumber,
        kind: body.Kind,
        time,
        receivedAt: new Date(nowMs),
        answer,
      });
      if (!inserted) return null; // a concurrent identical post stored it first
      if (decision.setsDnf)
        status = await setDnfAtCheckpoint(tx, { runnerId: runner.id, raceId, checkpoint, time });
      return { answer, statusChanged: decision.setsDnf && status === 'DNF' };
    });
    if (!outcome) {
      const first = await repo.findEntry(this.db, raceId, body.EntryId);
      return { answer: this.repeatAnswer(first!, body), created: false };
    }
    await this.opts.checkinEvents.checkedIn({
      type: 'checkin',
      raceId,
      runnerId: runner.id,
      checkpointId: checkpoint.id,
      kind: body.Kind,
      time: time.toISOString(),
      lat: checkpoint.lat,
      lon: checkpoint.lon,
    });
    if (outcome.statusChanged) await this.opts.raceEvents.raceChanged(raceId);
    return { answer: outcome.answer, created: true };
  }
}
