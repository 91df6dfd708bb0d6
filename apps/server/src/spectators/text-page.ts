import type { CourseTrack, LeaderboardRow } from '@racebeacon/domain';
import { escapeHtml } from '../identity/pages';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../lib/language';
import { TEXT_VIEW_TEXTS, textViewTexts, type TextViewTexts } from './texts';

/**
 * The text view of a race (`/race/{id}/text`): plain server-rendered HTML for a phone with one bar of signal — no
 * map, no script, one small page. The leaderboard's first 100 (or the runners a bib/name search finds), each with
 * rank, bib, name, status, distance, the last checkpoint passed and when the runner was last heard of; the time of
 * the newest position; it reloads itself every minute. Readable at 320 px (the table reflows to one card per
 * runner), and kept under 30 KB for a 2,500-runner race: table cells without closing tags, one inline stylesheet
 * (allowed by its hash in the Content-Security-Policy, see platform/security-headers.ts). In the reader's language
 * (`?lang=`, else Accept-Language, else English; the words in `texts.ts`), numbers and dates by Intl for its locale,
 * with a row of links to the other languages.
 */

/** How many rows the page lists at most. */
export const TEXT_PAGE_ROWS = 100;
/** Seconds between the page's own reloads. */
export const TEXT_PAGE_REFRESH_S = 60;

/**
 * The labels of a runner's values in the narrow layout, for one language: English as the default, the others under
 * `:lang()` (the page's `<html lang>`), so the one stylesheet (allowed by one hash) serves every language.
 */
function cardLabels(language: Language): string {
  const t = TEXT_VIEW_TEXTS[language];
  const scope = language === 'en' ? '' : `:lang(${language}) `;
  const css = (text: string) => JSON.stringify(text);
  return [
    [2, `${t.bib} `],
    [4, t.cardLabel(t.status)],
    [5, t.cardLabel(t.distance)],
    [6, t.cardLabel(t.lastCheckpoint)],
    [7, t.cardLabel(t.lastUpdate)],
  ]
    .map(([n, text]) => `${scope}td:nth-child(${n})::before{content:${css(String(text))}}`)
    .join('\n');
}

export const TEXT_PAGE_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#16202e;background:#fff}
main{max-width:960px;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:.2em 0}
p{margin:.4em 0}
a{color:#0b4f8a}
.meta{color:#4a5565;font-size:.9rem}
.langs{font-size:.9rem}
.langs a,.langs strong{margin-right:.6em;display:inline-block;padding:4px 0}
form{display:flex;flex-wrap:wrap;gap:6px;align-items:end;margin:12px 0}
label{width:100%;font-weight:600}
input{flex:1 1 12em;min-width:0;font:inherit;padding:8px;border:1px solid #8a96a8;border-radius:6px}
button{font:inherit;padding:8px 14px;border:0;border-radius:6px;background:#0b4f8a;color:#fff}
table{width:100%;border-collapse:collapse;font-size:.95rem}
caption{text-align:left;font-weight:600;padding:6px 0}
th,td{text-align:left;padding:6px;border-bottom:1px solid #d5dce6;vertical-align:top;overflow-wrap:anywhere}
th{background:#eef2f7}
.n{text-align:right;white-space:nowrap}
@media (max-width:600px){
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
tr{display:grid;grid-template-columns:auto 1fr auto;gap:0 10px;padding:8px 0;border-bottom:1px solid #d5dce6}
td{border:0;padding:0}
td:nth-child(1){grid-column:1;grid-row:1/6;font-weight:700}
td:nth-child(2){grid-column:3;grid-row:1}
td:nth-child(3){grid-column:2;grid-row:1;font-weight:600}
td:nth-child(n+4){grid-column:2/4;color:#4a5565;font-size:.9rem}
td.n{text-align:left}
${LANGUAGES.map(cardLabels).join('\n')}
}
`;

export interface TextPageInput {
  productName: string;
  raceId: number;
  raceName: string;
  /** The rows to list (already filtered by the search), in leaderboard order. */
  rows: LeaderboardRow[];
  /** How many runners the race has (or the search matched) in all. */
  total: number;
  search: string;
  waypoints: CourseTrack['Waypoints'];
  /** The full race page (the web app). */
  racePageUrl: string;
  now: Date;
  /** The page's language and the locale its numbers and dates are written in (`pickLanguage`). */
  language: Language;
  locale: string;
}

/** The Intl formats of one locale: a count, a distance, a time of day and a date (both UTC). */
function formats(locale: string) {
  const count = new Intl.NumberFormat(locale);
  const km = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const time = new Intl.DateTimeFormat(locale, {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'UTC',
  });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    count: (n: number) => count.format(n),
    km: (n: number) => `${km.format(n)} km`,
    /** "14:05 UTC" (and the date when it is not today): the server does not know the reader's zone, so it says UTC. */
    clock(iso: string | null, now: Date): string {
      if (!iso) return '–';
      const d = new Date(iso);
      const hm = `${time.format(d)} UTC`;
      return d.toISOString().slice(0, 10) === now.toISOString().slice(0, 10) ? hm : `${date.format(d)} ${hm}`;
    },
  };
}

/** The last waypoint (aid station) at or before the runner's distance along the course. */
export function lastCheckpoint(row: LeaderboardRow, waypoints: CourseTrack['Waypoints']): string | null {
  if (row.DistanceKm === null) return null;
  const m = row.DistanceKm * 1000;
  let last: string | null = null;
  for (const w of [...waypoints].sort((a, b) => a.DistanceM - b.DistanceM))
    if (w.DistanceM <= m) last = w.Name;
  return last;
}

/** The page's own address in another language, keeping the search: "?lang=fr&q=12". */
function languageHref(language: Language, search: string): string {
  return `?lang=${language}${search ? `&q=${encodeURIComponent(search)}` : ''}`;
}

/** The row of language links: each language by its own name, the current one not a link. */
function languageLinks(t: TextViewTexts, current: Language, search: string): string {
  const e = escapeHtml;
  const links = LANGUAGES.map((l) =>
    l === current
      ? `<strong lang=${l} aria-current="true">${LANGUAGE_NAMES[l]}</strong>`
      : `<a href="${e(languageHref(l, search))}" hreflang=${l} lang=${l}>${LANGUAGE_NAMES[l]}</a>`,
  ).join(' ');
  return `<nav class=langs aria-label="${e(t.languages)}">${links}</nav>`;
}

/** The head of every text-view page: language, viewport, title, the one stylesheet, and a reload when asked. */
function head(language: Language, title: string, productName: string, refreshS?: number): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${refreshS ? `<meta http-equiv="refresh" content="${refreshS}">\n` : ''}<title>${escapeHtml(title)} · ${escapeHtml(productName)}</title>
<style>${TEXT_PAGE_STYLE}</style>
</head>
<body>
<main>
`;
}

export function renderTextPage(p: TextPageInput): string {
  const e = escapeHtml;
  const t = textViewTexts(p.language);
  const f = formats(p.locale);
  const newest = p.rows.reduce<string | null>(
    (max, r) => (r.LastPingTime && (!max || r.LastPingTime > max) ? r.LastPingTime : max),
    null,
  );
  const rows = p.rows
    .map((r) => {
      const name = `${r.FirstName} ${r.LastName}`.trim();
      const km = r.DistanceKm === null ? '–' : f.km(r.DistanceKm);
      const cp = lastCheckpoint(r, p.waypoints) ?? '–';
      const status =
        r.Status === 'finished' && r.FinishTime
          ? t.finishedAt(f.clock(r.FinishTime, p.now))
          : (t.statuses[r.Status as keyof TextViewTexts['statuses']] ?? r.Status);
      return (
        `<tr><td class=n>${r.Rank ?? '–'}<td>${e(r.BibNumber ?? '–')}<td>${e(name)}` +
        `<td>${e(status)}<td class=n>${km}<td>${e(cp)}` +
        `<td class=n>${f.clock(r.LastPingTime, p.now)}`
      );
    })
    .join('\n');
  const shown = p.rows.length;
  const summary = p.search
    ? t.matches(p.total, f.count(p.total), e(p.search), p.total > shown ? f.count(shown) : null)
    : t.top(f.count(shown), p.total, f.count(p.total));
  const newestTime = `<time${newest ? ` datetime="${newest}"` : ''}>${f.clock(newest, p.now)}</time>`;
  const updatedTime = `<time datetime="${p.now.toISOString()}">${f.clock(p.now.toISOString(), p.now)}</time>`;
  return `${head(p.language, t.title(p.raceName), p.productName, TEXT_PAGE_REFRESH_S)}${languageLinks(t, p.language, p.search)}
<h1>${e(p.raceName)}</h1>
<p class=meta>${t.meta(newestTime, updatedTime)}</p>
<p><a href="${e(p.racePageUrl)}">${e(t.fullPage)}</a></p>
<form method="get" role="search">
<label for="q">${e(t.searchLabel)}</label>
<input type="hidden" name="lang" value="${p.language}">
<input id="q" name="q" type="search" value="${e(p.search)}" maxlength="100" autocomplete="off">
<button type="submit">${e(t.search)}</button>${p.search ? ` <a href="?lang=${p.language}">${e(t.showLeaderboard)}</a>` : ''}
</form>
<p role="status">${summary}</p>
${
  shown
    ? `<table>
<caption>${e(p.search ? t.searchResults : t.leaderboard)}</caption>
<thead><tr><th scope=col>${e(t.rank)}<th scope=col>${e(t.bib)}<th scope=col>${e(t.name)}<th scope=col>${e(t.status)}<th scope=col class=n>${e(t.distance)}<th scope=col>${e(t.lastCheckpoint)}<th scope=col class=n>${e(t.lastUpdate)}</thead>
<tbody>
${rows}
</tbody>
</table>`
    : `<p>${e(t.noRunner)}</p>`
}
</main>
</body>
</html>
`;
}

/**
 * The text view while the database cannot be reached (503): a readable page that reloads itself after
 * `retryAfterS` (no script: a meta refresh), not the API's JSON.
 */
export function renderTextUnavailable(
  productName: string,
  raceId: number,
  retryAfterS: number,
  language: Language = 'en',
): string {
  const t = textViewTexts(language);
  return `${head(language, t.unavailableTitle, productName, retryAfterS)}<h1>${escapeHtml(t.unavailableHeading)}</h1>
<p>${escapeHtml(t.unavailable(raceId, retryAfterS))}</p>
</main>
</body>
</html>
`;
}

/** The 404 page of the text view: an unknown race, or one that is not public. */
export function renderTextNotFound(productName: string, raceId: number, language: Language = 'en'): string {
  const t = textViewTexts(language);
  return `${head(language, t.notFoundTitle, productName)}<h1>${escapeHtml(t.notFoundTitle)}</h1>
<p>${escapeHtml(t.notFound(raceId))}</p>
<p><a href="/races">${escapeHtml(t.allRaces)}</a></p>
</main>
</body>
</html>
`;
}
