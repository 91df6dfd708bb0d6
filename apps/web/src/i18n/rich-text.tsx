import { cloneElement, Fragment, type ReactElement, type ReactNode } from 'react';

/**
 * A translated text with markup: `<0>…</0>` in the catalogue's text becomes `tags[0]` around that part
 * ("<0>Open it</0> to upload the course" with a Link as tag 0), so a translation can move the link or the emphasis
 * where its grammar wants it.
 */
export function RichText({ text, tags }: { text: string; tags: ReactElement[] }) {
  const parts: ReactNode[] = [];
  const pattern = /<(\d+)>([\s\S]*?)<\/\1>/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    const tag = tags[Number(m[1])];
    parts.push(tag ? cloneElement(tag, { key: parts.length }, m[2]) : m[2]);
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <Fragment>{parts}</Fragment>;
}
