import { useEffect } from 'react';
import { useAppConfig } from './app-config';

/** "<page> · <product>" in the tab and in shared links' bookmarks; the product name alone on the home page. */
export function useDocumentTitle(page: string | null | undefined): void {
  const { productName } = useAppConfig();
  useEffect(() => {
    document.title = page ? `${page} · ${productName}` : productName;
  }, [page, productName]);
}
