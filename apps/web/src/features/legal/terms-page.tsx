import { useAppConfig } from '../../lib/app-config';
import { LegalPage } from './legal-page';

export function TermsPage() {
  const { productName } = useAppConfig();
  return (
    <LegalPage title="Terms of service">
      <p>
        These terms apply to everyone who uses {productName}: visitors following a race, race directors
        managing one, and administrators running the service.
      </p>
      <h2>Using the service</h2>
      <ul>
        <li>Visitors may browse public races, their courses and runners free of charge.</li>
        <li>
          Race directors are responsible for the races they create and must have their runners' consent before
          registering them and handing them a tracking device.
        </li>
        <li>Administrators may approve, decline or remove races and manage the tracking devices.</li>
      </ul>
      <h2>Tracking is best effort</h2>
      <p>
        Live positions depend on satellites, radio coverage and batteries. Updates normally arrive every 2.5
        minutes but may be late or missing. Never rely on {productName} for the safety of a runner: it is not
        an emergency service.
      </p>
      <h2>Acceptable use</h2>
      <p>
        Do not upload content you have no right to share, try to break or overload the service, or use it to
        follow a person without their consent. We may suspend accounts that do.
      </p>
      <h2>Liability</h2>
      <p>
        The service is provided as is. To the extent the law allows, we are not liable for losses caused by
        missing or wrong tracking data.
      </p>
      <h2>Changes</h2>
      <p>We may update these terms; the effective date above always shows the current version.</p>
    </LegalPage>
  );
}
