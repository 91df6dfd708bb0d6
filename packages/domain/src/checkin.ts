import { z } from 'zod';
import { isoDateTime } from './schemas';

/**
 * Aid-station check-ins: the director's check-in links (one per checkpoint, a secret token in the URL), the
 * volunteer page's data, the check-in body and its answer, and the rule for an acceptable check-in time. Shared by
 * the server (validation, OpenAPI) and the volunteer page (types, the same time rule before queueing).
 */

export const CHECKIN_KINDS = ['in', 'out', 'dnf'] as const;
export const checkinKindSchema = z.enum(CHECKIN_KINDS);
export type CheckinKind = z.infer<typeof checkinKindSchema>;

const isoTime = z.string().describe('ISO 8601 date-time with offset');

/** A check-in link as the director lists it (the token itself is shown once, when it is created). */
export const checkinLinkSchema = z
  .object({
    LinkId: z.number().int(),
    RaceId: z.number().int(),
    CheckpointId: z.number().int(),
    CheckpointName: z.string(),
    Label: z.string().nullable(),
    CreatedAt: isoTime,
    CreatedBy: z.string().nullable(),
    RevokedAt: isoTime.nullable(),
    /** Check-ins received through this link. */
    Entries: z.number().int(),
  })
  .meta({ id: 'CheckinLink' });
export type CheckinLink = z.infer<typeof checkinLinkSchema>;

/** The answer to creating a link: the only time the volunteer's URL path (with its secret token) is given out. */
export const createdCheckinLinkSchema = checkinLinkSchema
  .extend({
    Url: z.string().describe('The volunteer page: /checkin/{token}. Shown once; only a hash is stored.'),
  })
  .meta({ id: 'CreatedCheckinLink' });
export type CreatedCheckinLink = z.infer<typeof createdCheckinLinkSchema>;

export const checkinLinkBodySchema = z.object({
  Label: z.string().trim().max(200).nullable().optional().default(null),
});
export type CheckinLinkBody = z.input<typeof checkinLinkBodySchema>;

/** What the volunteer page needs: where it is, and the runners to pick from. */
export const checkinPageSchema = z
  .object({
    RaceId: z.number().int(),
    RaceName: z.string(),
    CheckpointId: z.number().int(),
    CheckpointName: z.string(),
    DistanceKm: z.number(),
    Runners: z.array(
      z.object({
        RunnerId: z.number().int(),
        BibNumber: z.string(),
        FirstName: z.string(),
        LastName: z.string(),
        Status: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'CheckinPage' });
export type CheckinPage = z.infer<typeof checkinPageSchema>;

const ENTRY_ID_RULE = 'must be 8 to 64 letters, digits, - or _ (a UUID made on the phone)';

/** One entry sent by the volunteer's phone; EntryId makes a repeat harmless. */
export const checkinBodySchema = z.object({
  EntryId: z
    .string({ error: `EntryId ${ENTRY_ID_RULE}` })
    .regex(/^[A-Za-z0-9_-]{8,64}$/, { error: `EntryId ${ENTRY_ID_RULE}` }),
  BibNumber: z
    .string({ error: 'BibNumber must be a text of 1 to 32 characters' })
    .trim()
    .min(1, 'BibNumber is required')
    .max(32)
    .refine((s) => !s.includes('\0'), 'BibNumber must not contain NUL characters'),
  Kind: checkinKindSchema,
  Time: isoDateTime,
});
export type CheckinBody = z.input<typeof checkinBodySchema>;
export type CheckinInput = z.output<typeof checkinBodySchema>;

/** The answer to a check-in; a repeat of the same EntryId gets exactly this again. */
export const checkinAnswerSchema = z
  .object({
    EntryId: z.string(),
    RaceId: z.number().int(),
    CheckpointId: z.number().int(),
    CheckpointName: z.string(),
    RunnerId: z.number().int(),
    BibNumber: z.string(),
    FirstName: z.string(),
    LastName: z.string(),
    Kind: checkinKindSchema,
    Time: isoTime,
    ReceivedAt: isoTime,
    /** The runner's status after this entry ('DNF' after a dnf). */
    Status: z.string().nullable(),
  })
  .meta({ id: 'CheckinAnswer' });
export type CheckinAnswer = z.infer<typeof checkinAnswerSchema>;

/** A phone's clock may run a little ahead: a check-in up to this far in the future is accepted. */
export const CHECKIN_FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Why a check-in time cannot be accepted, or null when it can: more than the skew in the future, or before the race
 * began (the earlier of its scheduled start and the moment its clock was started; no bound when neither is known).
 */
export function checkinTimeProblem(
  timeMs: number,
  nowMs: number,
  race: { startTimeMs: number | null; clockStartedMs: number | null },
): string | null {
  if (!Number.isFinite(timeMs)) return 'Time is not a valid date-time.';
  if (timeMs > nowMs + CHECKIN_FUTURE_SKEW_MS)
    return 'Time is in the future: check the phone’s clock (a few minutes ahead is accepted).';
  const starts = [race.startTimeMs, race.clockStartedMs].filter((t): t is number => t !== null);
  if (starts.length && timeMs < Math.min(...starts)) return 'Time is before the race started.';
  if (!starts.length && timeMs < nowMs - CHECKIN_MAX_AGE_WITHOUT_START_MS)
    return 'Time is more than a day ago and the race has not started: check the phone’s clock and date.';
  return null;
}

/** A race with neither a start time nor a started clock: a check-in older than this is refused (a wrong clock). */
export const CHECKIN_MAX_AGE_WITHOUT_START_MS = 24 * 3600_000;

/** Why a check-in is refused: the HTTP status, the error code and the message for the volunteer. */
export interface CheckinRefusal {
  status: 400 | 409;
  error: 'checkin_time' | 'race_ended' | 'status_kept';
  message: string;
}

/** What a check-in may do: refused, or accepted (and whether a `dnf` sets the runner's status). */
export type CheckinDecision = { refused: CheckinRefusal } | { refused: null; setsDnf: boolean };

/**
 * The rules of one new check-in (a repeat of an EntryId is answered before: its first answer stands):
 * - after the race's end (End Race) nothing from a check-in link changes results: 409 `race_ended`, only a
 *   director's correction does;
 * - its time must be acceptable (`checkinTimeProblem`): 400 `checkin_time`;
 * - a `dnf` never downgrades what a person set or a finish: a runner DSQ or DNS, or who finished, keeps it (409
 *   `status_kept`); a runner already DNF (a director's or an earlier check-in's) keeps that first record (accepted,
 *   nothing written); otherwise it sets DNF;
 * - `in` and `out` never change a status (a passing is recorded, a DSQ stays DSQ).
 */
export function checkinDecision(v: {
  kind: CheckinKind;
  timeMs: number;
  nowMs: number;
  race: { startTimeMs: number | null; clockStartedMs: number | null; endedMs: number | null };
  runner: { status: string | null; finished: boolean };
}): CheckinDecision {
  const refused = checkinRaceRefusal(v.timeMs, v.nowMs, v.race);
  return refused ? { refused } : checkinStatusDecision(v.kind, v.runner);
}

/** The race's part of `checkinDecision` (ended, time), decided before the bib is looked up; null: acceptable. */
export function checkinRaceRefusal(
  timeMs: number,
  nowMs: number,
  race: { startTimeMs: number | null; clockStartedMs: number | null; endedMs: number | null },
): CheckinRefusal | null {
  if (race.endedMs !== null)
    return {
      status: 409,
      error: 'race_ended',
      message:
        'The race has ended: check-ins no longer change results. Tell the race director, who can correct them.',
    };
  const problem = checkinTimeProblem(timeMs, nowMs, race);
  return problem ? { status: 400, error: 'checkin_time', message: problem } : null;
}

/** The runner's part of `checkinDecision`: what a check-in of this kind may do to their status. */
export function checkinStatusDecision(
  kind: CheckinKind,
  runner: { status: string | null; finished: boolean },
): CheckinDecision {
  if (kind !== 'dnf') return { refused: null, setsDnf: false };
  const kept = (why: string): CheckinDecision => ({
    refused: {
      status: 409,
      error: 'status_kept',
      message: `${why}: a DNF is not recorded. Tell the race director.`,
    },
  });
  if (runner.status === 'DSQ') return kept('This runner was disqualified (DSQ) by the race director');
  if (runner.status === 'DNS') return kept('This runner is marked as not started (DNS) by the race director');
  if (runner.finished) return kept('This runner has already finished');
  return { refused: null, setsDnf: runner.status !== 'DNF' };
}

/** Whether two bodies with the same EntryId describe the same entry (a true repeat). */
export function sameCheckin(
  a: { BibNumber: string; Kind: string; Time: string },
  b: { BibNumber: string; Kind: string; Time: string },
): boolean {
  return a.BibNumber === b.BibNumber && a.Kind === b.Kind && Date.parse(a.Time) === Date.parse(b.Time);
}
