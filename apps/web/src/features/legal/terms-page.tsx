import { useI18n } from '../../i18n';
import { useAppConfig } from '../../lib/app-config';
import { LegalPage, tl } from './legal-page';

export function TermsPage() {
  const { productName } = useAppConfig();
  useI18n();
  const product = { product: productName };
  return (
    <LegalPage title={tl('terms.title')}>
      <p>{tl('terms.intro', product)}</p>
      <h2>{tl('terms.usingTitle')}</h2>
      <ul>
        <li>{tl('terms.visitors')}</li>
        <li>{tl('terms.directors')}</li>
        <li>{tl('terms.admins')}</li>
      </ul>
      <h2>{tl('terms.bestEffortTitle')}</h2>
      <p>{tl('terms.bestEffort', product)}</p>
      <h2>{tl('terms.useTitle')}</h2>
      <p>{tl('terms.use')}</p>
      <h2>{tl('terms.liabilityTitle')}</h2>
      <p>{tl('terms.liability')}</p>
      <h2>{tl('terms.changesTitle')}</h2>
      <p>{tl('terms.changes')}</p>
    </LegalPage>
  );
}
export { legalTextsReady } from './legal-page';
