import { useAppConfig } from '../../lib/app-config';
import { LegalPage } from './legal-page';

export function PrivacyPage() {
  const { productName } = useAppConfig();
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
      <h2>How long we keep it</h2>
      <p>
        Race data is kept while the race director keeps the race; deleting a race deletes its runners, course
        and positions. Sign-in data is kept in your browser's session storage and is cleared when you close
        the tab or log out.
      </p>
      <h2>Your rights</h2>
      <p>
        You can ask us for a copy of the data about you, to correct it, or to delete it. Runners can ask their
        race director or us directly.
      </p>
    </LegalPage>
  );
}
