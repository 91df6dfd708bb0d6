import type { ReactNode } from 'react';
import { useI18n } from '../../i18n';
import { formatLongDate } from '../../i18n/format';
import { legalTexts } from '../../i18n/legal';
import { RichText } from '../../i18n/rich-text';
import { useAppConfig } from '../../lib/app-config';
import { useDocumentTitle } from '../../lib/use-document-title';

/** The legal pages' effective date (the spec's October 1, 2025), written in the viewer's locale. */
export const EFFECTIVE_DATE = '2025-10-01';

/** The legal pages' texts and `ready` (the lazy routes await it: the page shows in its language at once). */
export const { t: tl, ready: legalTextsReady } = legalTexts;

export function LegalPage({ title, children }: { title: string; children: ReactNode }) {
  const { contactEmail } = useAppConfig();
  useI18n();
  useDocumentTitle(title);
  return (
    <article className="card legal">
      <h1>{title}</h1>
      <p className="legal-effective">{tl('effective', { date: formatLongDate(EFFECTIVE_DATE) })}</p>
      {children}
      <h2>{tl('contactTitle')}</h2>
      <p>
        <RichText
          text={tl('contact', { email: contactEmail })}
          tags={[<a key="mail" href={`mailto:${contactEmail}`} />]}
        />
      </p>
    </article>
  );
}
