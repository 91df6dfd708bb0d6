import type { CourseTrack, LeaderboardRow } from '@racebeacon/domain';
import { escapeHtml } from '../identity/pages';

/**
 * The text view of a race (`/race/{id}/text`): plain server-rendered HTML for a phone with one bar of signal — no
 * map, no script, one small page. The leaderboard's first 100 (or the runners a bib/name search finds), each with
 * rank, bib, name, status, distance, the last checkpoint passed and when the runner was last heard of; the time of
 * the newest position; it reloads itself every minute. Readable at 320 px (the table reflows to one card per
 * runner), and kept under 30 KB for a 2,500-runner race: table cells without closing tags, one inline stylesheet
 * (allowed by its hash in the Content-Security-Policy, see platform/security-headers.ts).
 */

/** How many rows the page lists at most. */
export const TEXT_PAGE_ROWS = 100;
/** Seconds between the page's own reloads. */
export const TEXT_PAGE_REFRESH_S = 60;

export const TEXT_PAGE_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#16202e;background:#fff}
main{max-width:960px;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:.2em 0}
p{margin:.4em 0}
a{color:#0b4f8a}
.meta{color:#4a5565;font-size:.9rem}
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
td:nth-child(2)::before{content:"Bib "}
td:nth-child(3){grid-column:2;grid-row:1;font-weight:600}
td:nth-child(n+4){grid-column:2/4;color:#4a5565;font-size:.9rem}
td:nth-child(4)::before{content:"Status: "}
td:nth-child(5)::before{content:"Distance: "}
td:nth-child(6)::before{content:"Last checkpoint: "}
td:nth-child(7)::before{content:"Last update: "}
td.n{text-align:left}
}
`;

const STATUS_LABEL: Record<string, string> = {
  'not-started': 'Not started',
  racing: 'Racing',
  finished: 'Finished',
  stale: 'No recent signal',
  'off-course': 'Off course',
  dnf: 'DNF',
};

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
}

/** "14:05 UTC" (and the date when it is not today): the server does not know the reader's zone, so it says UTC. */
function clock(iso: string | null, now: Date): string {
  if (!iso) return '–';
  const d = new Date(iso);
  const time = `${d.toISOString().slice(11, 16)} UTC`;
  return d.toISOString().slice(0, 10) === now.toISOString().slice(0, 10)
    ? time
    : `${d.toISOString().slice(0, 10)} ${time}`;
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

export function renderTextPage(p: TextPageInput): string {
  const e = escapeHtml;
  const newest = p.rows.reduce<string | null>(
    (max, r) => (r.LastPingTime && (!max || r.LastPingTime > max) ? r.LastPingTime : max),
    null,
  );
  const rows = p.rows
    .map((r) => {
      const name = `${r.FirstName} ${r.LastName}`.trim();
      const km = r.DistanceKm === null ? '–' : `${r.DistanceKm.toFixed(1)} km`;
      const cp = lastCheckpoint(r, p.waypoints) ?? '–';
      const status =
        r.Status === 'finished' && r.FinishTime ? `Finished ${clock(r.FinishTime, p.now)}` : null;
      return (
        `<tr><td class=n>${r.Rank ?? '–'}<td>${e(r.BibNumber ?? '–')}<td>${e(name)}` +
        `<td>${e(status ?? STATUS_LABEL[r.Status] ?? r.Status)}<td class=n>${km}<td>${e(cp)}` +
        `<td class=n>${clock(r.LastPingTime, p.now)}`
      );
    })
    .join('\n');
  const title = `${p.raceName} · live results (text)`;
  const shown = p.rows.length;
  const summary = p.search
    ? `${p.total} runner${p.total === 1 ? '' : 's'} match “${e(p.search)}”${p.total > shown ? `, the first ${shown} shown` : ''}.`
    : `Top ${shown} of ${p.total} runner${p.total === 1 ? '' : 's'}.`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${TEXT_PAGE_REFRESH_S}">
<title>${e(title)} · ${e(p.productName)}</title>
<style>${TEXT_PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>${e(p.raceName)}</h1>
<p class=meta>Live results, text only. Newest position: <time${newest ? ` datetime="${newest}"` : ''}>${clock(newest, p.now)}</time>. Page updated <time datetime="${p.now.toISOString()}">${clock(p.now.toISOString(), p.now)}</time>; it reloads every minute.</p>
<p><a href="${e(p.racePageUrl)}">Open the full race page (map)</a></p>
<form method="get" role="search">
<label for="q">Find a runner by bib or name</label>
<input id="q" name="q" type="search" value="${e(p.search)}" maxlength="100" autocomplete="off">
<button type="submit">Search</button>${p.search ? ` <a href="?">Show the leaderboard</a>` : ''}
</form>
<p role="status">${summary}</p>
${
  shown
    ? `<table>
<caption>${p.search ? 'Search results' : 'Leaderboard'}</caption>
<thead><tr><th scope=col>Rank<th scope=col>Bib<th scope=col>Name<th scope=col>Status<th scope=col class=n>Distance<th scope=col>Last checkpoint<th scope=col class=n>Last update</thead>
<tbody>
${rows}
</tbody>
</table>`
    : `<p>No runner found.</p>`
}
</main>
</body>
</html>
`;
}

/** The 404 page of the text view: an unknown race, or one that is not public. */
/**
 * The text view while the database cannot be reached (503): a readable page that reloads itself after
 * `retryAfterS` (no script: a meta refresh), not the API's JSON.
 */
export function renderTextUnavailable(productName: string, raceId: number, retryAfterS: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${retryAfterS}">
<title>Results unavailable · ${escapeHtml(productName)}</title>
<style>${TEXT_PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>Results unavailable for a moment</h1>
<p>The results of race ${raceId} cannot be read right now. This page tries again in ${retryAfterS} seconds.</p>
</main>
</body>
</html>
`;
}

export function renderTextNotFound(productName: string, raceId: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Race not found · ${escapeHtml(productName)}</title>
<style>${TEXT_PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>Race not found</h1>
<p>Race ${raceId} does not exist or is not public.</p>
<p><a href="/races">See all races</a></p>
</main>
</body>
</html>
`;
}
