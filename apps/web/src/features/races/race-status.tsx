import type { Race } from '@racebeacon/domain/entities';
import { t, useI18n } from '../../i18n';

/** One human word for where a race is in its life, shown as a coloured pill beside the name. */
export function raceStage(race: Race): { label: string; tone: 'muted' | 'accent' | 'live' | 'done' } {
  if (!race.Approved) return { label: t('stage.awaiting'), tone: 'muted' };
  if (race.HasFinished) return { label: t('stage.finished'), tone: 'done' };
  if (race.HasStarted) return { label: t('stage.live'), tone: 'live' };
  return { label: t('stage.upcoming'), tone: 'accent' };
}

export function StagePill({ race }: { race: Race }) {
  useI18n();
  const stage = raceStage(race);
  return <span className={`pill pill-${stage.tone}`}>{stage.label}</span>;
}
