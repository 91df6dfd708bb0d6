import { useEffect, useState } from 'react';
import type { Race } from '@racebeacon/domain/entities';
import { useAppConfig } from '../../lib/app-config';
import { legalApi } from './api';
import { LegalPage } from './legal-page';

/** How long a race keeps its runners' positions, from its RetentionDays. */
const keptFor = (r: Race): string =>
  r.RetentionDays == null
    ? 'kept until the race is deleted'
    : `deleted ${r.RetentionDays} day${r.RetentionDays === 1 ? '' : 's'} after the race ends`;

export function PrivacyPage() {
  const { productName } = useAppConfig();
  // Each public race's own settings, as the server applies them (null: not loaded, or could not be).
  const [races, setRaces] = useState<Race[] | null>(null);
  useEffect(() => {
    let live = true;
    legalApi.races().then(
      (list) => live && setRaces(list),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return (
    <LegalPage title="Privacy policy">
      <p>
        {productName} shows races live: where each runner is on the course while a race is running. This
        policy says what we keep, why, and for how long.
      </p>
      <h2>What we collect</h2>
      <ul>
        <li>
          <strong>Race directors and administrators:</strong> the account identifier, name and e-mail address
          given by the sign-in provider, and the races, courses and runners you enter.
        </li>
        <li>
          <strong>Runners:</strong> the name, bib number, gender and age a race director registers, and the
          positions reported by the tracking device the runner carries during a race.
        </li>
        <li>
          <strong>Visitors:</strong> nothing beyond the technical data any web server receives (address,
          browser, time of the request), kept in short-lived logs to run the service securely.
        </li>
      </ul>
      <h2>How we use it</h2>
      <p>
        Positions are used only to show a race's map and leaderboard. Race, course and runner details are
        shown publicly once an administrator approves the race. We do not sell data or use it for advertising.
      </p>
      <h2>Privacy of runners</h2>
      <p>
        A race director can show positions and the leaderboard to the public a number of minutes late (the
        director and race HQ see them live), keep runners' trails private, and let a runner hide their live
        position: that runner stays on the leaderboard by progress, with no dot on the public map.
      </p>
      <h2>How long we keep it</h2>
      <p>
        Positions are kept for the period the race director sets, counted from the end of the race, then
        deleted; the results (the final leaderboard and splits) stay. Without a period, positions are kept
        while the race director keeps the race. Deleting a race deletes its runners, course and positions.
        Sign-in data is kept in your browser's session storage and is cleared when you close the tab or log
        out.
      </p>
      {races && races.length > 0 && (
        <table className="table responsive-table" data-testid="privacy-races">
          <thead>
            <tr>
              <th scope="col">Race</th>
              <th scope="col">Public delay</th>
              <th scope="col">Trails</th>
              <th scope="col">Positions</th>
            </tr>
          </thead>
          <tbody>
            {races.map((r) => (
              <tr key={r.RaceId}>
                <th scope="row" data-label="Race">
                  {r.Name}
                </th>
                <td data-label="Public delay">{r.PublicDelayMin ? `${r.PublicDelayMin} min` : 'live'}</td>
                <td data-label="Trails">{r.TrailsPublic === false ? 'private' : 'public'}</td>
                <td data-label="Positions">{keptFor(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Your rights</h2>
      <p>
        You can ask us for a copy of the data about you, to correct it, or to delete it. Runners can ask their
        race director or us directly.
      </p>
    </LegalPage>
  );
}
