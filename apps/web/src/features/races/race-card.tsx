import type { Race } from '@racebeacon/domain/entities';
import { Link } from 'react-router';
import { formatDateTime, yn } from '../../lib/format';
import { StagePill } from './race-status';
import { t, useI18n } from '../../i18n';

export interface RaceCardField {
  label: string;
  value: string;
}

/**
 * A race as a card; the whole card is one link (its title), so it is a single tab stop and the click area is
 * the card. `fields` are the Y/N flags each list shows (they differ between Races and My Races).
 */
export function RaceCard({ race, to, fields }: { race: Race; to: string; fields: RaceCardField[] }) {
  useI18n();
  return (
    <article className="card race-card" data-testid="race-card">
      <div className="race-card-top">
        <h2 className="race-card-title">
          <Link to={to} className="stretched-link">
            {race.Name}
          </Link>
        </h2>
        <StagePill race={race} />
      </div>
      <p className="race-card-desc">{race.Description || t('races.noDescription')}</p>
      <dl className="facts">
        <div>
          <dt>{t('races.location')}</dt>
          <dd>{race.Location || '-'}</dd>
        </div>
        <div>
          <dt>{t('races.startTime')}</dt>
          <dd>{formatDateTime(race.StartTime)}</dd>
        </div>
        {fields.map((f) => (
          <div key={f.label}>
            <dt>{f.label}</dt>
            <dd className="yn">{f.value}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}

export const publicFlags = (race: Race): RaceCardField[] => [
  { label: t('races.hasStarted'), value: yn(race.HasStarted) },
  { label: t('races.hasFinished'), value: yn(race.HasFinished) },
];

export const directorFlags = (race: Race): RaceCardField[] => [
  { label: t('races.started'), value: yn(race.HasStarted) },
  { label: t('races.finished'), value: yn(race.HasFinished) },
  { label: t('races.approved'), value: yn(race.Approved) },
];
