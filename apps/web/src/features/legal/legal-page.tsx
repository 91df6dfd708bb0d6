import type { ReactNode } from 'react';
import { useAppConfig } from '../../lib/app-config';
import { useDocumentTitle } from '../../lib/use-document-title';

export const EFFECTIVE_DATE = 'October 1, 2025';

export function LegalPage({ title, children }: { title: string; children: ReactNode }) {
  const { contactEmail } = useAppConfig();
  useDocumentTitle(title);
  return (
    <article className="card legal">
      <h1>{title}</h1>
      <p className="legal-effective">Effective date: {EFFECTIVE_DATE}</p>
      {children}
      <h2>Contact</h2>
      <p>
        Questions about this page? Write to us at <a href={`mailto:${contactEmail}`}>{contactEmail}</a>.
      </p>
    </article>
  );
}
