import type { Race } from '@racebeacon/domain/entities';

/** One human word for where a race is in its life, shown as a coloured pill beside the name. */
export function raceStage(race: Race): { label: string; tone: 'muted' | 'accent' | 'live' | 'done' } {
  if (!race.Approved) return { label: 'Awaiting approval', tone: 'muted' };
  if (race.HasFinished) return { label: 'Finished', tone: 'done' };
  if (race.HasStarted) return { label: 'Live', tone: 'live' };
  return { label: 'Upcoming', tone: 'accent' };
}

export function StagePill({ race }: { race: Race }) {
  const stage = raceStage(race);
  return <span className={`pill pill-${stage.tone}`}>{stage.label}</span>;
}
