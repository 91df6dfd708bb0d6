import { useEffect, useState } from 'react';
import type { Race } from '@racebeacon/domain/entities';
import { useAppConfig } from '../../lib/app-config';
import { legalApi } from './api';
import { LegalPage, tl } from './legal-page';
import { useI18n } from '../../i18n';
import { formatMinutes } from '../../i18n/format';
import { RichText } from '../../i18n/rich-text';

/** How long a race keeps its runners' positions, from its RetentionDays. */
const keptFor = (r: Race): string =>
  r.RetentionDays == null
    ? tl('privacy.keptUntilDeleted')
    : tl('privacy.deletedAfter', { count: r.RetentionDays });

export function PrivacyPage() {
  const { productName } = useAppConfig();
  useI18n();
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
  const strong = [<strong key="strong" />];
  return (
    <LegalPage title={tl('privacy.title')}>
      <p>{tl('privacy.intro', { product: productName })}</p>
      <h2>{tl('privacy.collectTitle')}</h2>
      <ul>
        <li>
          <RichText text={tl('privacy.directors')} tags={strong} />
        </li>
        <li>
          <RichText text={tl('privacy.runners')} tags={strong} />
        </li>
        <li>
          <RichText text={tl('privacy.visitors')} tags={strong} />
        </li>
      </ul>
      <h2>{tl('privacy.useTitle')}</h2>
      <p>{tl('privacy.use')}</p>
      <h2>{tl('privacy.runnersTitle')}</h2>
      <p>{tl('privacy.runnersText')}</p>
      <h2>{tl('privacy.keepTitle')}</h2>
      <p>{tl('privacy.keep')}</p>
      {races && races.length > 0 && (
        <table className="table responsive-table" data-testid="privacy-races">
          <thead>
            <tr>
              <th scope="col">{tl('privacy.race')}</th>
              <th scope="col">{tl('privacy.delay')}</th>
              <th scope="col">{tl('privacy.trails')}</th>
              <th scope="col">{tl('privacy.positions')}</th>
            </tr>
          </thead>
          <tbody>
            {races.map((r) => (
              <tr key={r.RaceId}>
                <th scope="row" data-label={tl('privacy.race')}>
                  {r.Name}
                </th>
                <td data-label={tl('privacy.delay')}>
                  {r.PublicDelayMin ? formatMinutes(r.PublicDelayMin) : tl('privacy.live')}
                </td>
                <td data-label={tl('privacy.trails')}>
                  {r.TrailsPublic === false ? tl('privacy.private') : tl('privacy.public')}
                </td>
                <td data-label={tl('privacy.positions')}>{keptFor(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{tl('privacy.rightsTitle')}</h2>
      <p>{tl('privacy.rights')}</p>
    </LegalPage>
  );
}
export { legalTextsReady } from './legal-page';
