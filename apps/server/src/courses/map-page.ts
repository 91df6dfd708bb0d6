import { cumulativeDistances, type CoursePoint } from '@racebeacon/domain';
import type { Language } from '../lib/language';
import { COURSE_MAP_TEXTS, type CourseMapTexts } from './map-texts';

/**
 * The course map page behind Course.MapUrl: one self-contained HTML document with the course drawn as inline SVG.
 * No tiles, no scripts, no external requests, so it works offline, behind strict firewalls and with a strict CSP.
 * In the reader's language (`?lang=`, else Accept-Language, else English; the words in `map-texts.ts`), numbers by
 * Intl for its locale.
 */

export interface CourseMapInput {
  productName: string;
  title: string;
  lengthM: number;
  climbM: number;
  descentM: number;
  hasElevation: boolean;
  points: readonly CoursePoint[];
  waypoints: readonly { name: string; lat: number; lon: number }[];
  gpxUrl: string;
  geoJsonUrl: string;
  language: Language;
  locale: string;
}

/** Numbers for the page's locale: whole metres ("1,234") and kilometres with two decimals ("12.50"). */
function numbers(locale: string) {
  const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const km = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return { m: (v: number) => whole.format(Math.round(v)), km: (metres: number) => km.format(metres / 1000) };
}

/** The page's stylesheet, inline: the Content-Security-Policy (platform/security-headers.ts) allows it by hash. */
export const COURSE_MAP_STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1rem; color: #1b1f24; background: #f6f7f9; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  p.stats { margin: 0 0 1rem; color: #3d4650; }
  figure { margin: 0 0 1rem; background: #fff; border: 1px solid #d0d5db; border-radius: 6px; }
  svg { display: block; width: 100%; height: auto; }
  .course { fill: none; stroke: #d1361f; stroke-width: 3; stroke-linejoin: round; stroke-linecap: round; }
  .start { fill: none; stroke: #1f8a3b; stroke-width: 4; } .finish { fill: #1b1f24; }
  .wpt circle { fill: #1f5fbf; } .wpt text { font-size: 12px; fill: #1b1f24; }
  .profile { fill: #c9d8ee; stroke: #1f5fbf; stroke-width: 1.5; }
  figcaption { padding: .4rem .6rem; font-size: .85rem; color: #3d4650; }
`;

const MAX_DRAWN_POINTS = 4000;
const W = 800;
const H = 560;
const PAD = 24;

const esc = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Keeps the first and last point and an even spread in between: plenty for a picture. */
function thin<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = (items.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => items[Math.round(i * step)]);
}

/** Web Mercator (in degrees-like units) keeps shapes true to what a map would show. */
const mercY = (lat: number) => (Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) * 180) / Math.PI;

export function renderCourseMapHtml(input: CourseMapInput): string {
  const drawn = thin(input.points, MAX_DRAWN_POINTS);
  const xs = drawn.map((p) => p[0]);
  const ys = drawn.map((p) => mercY(p[1]));
  const all = [...xs.map((x, i) => [x, ys[i]]), ...input.waypoints.map((w) => [w.lon, mercY(w.lat)])] as [
    number,
    number,
  ][];
  const minX = Math.min(...all.map((p) => p[0]));
  const maxX = Math.max(...all.map((p) => p[0]));
  const minY = Math.min(...all.map((p) => p[1]));
  const maxY = Math.max(...all.map((p) => p[1]));
  const spanX = Math.max(maxX - minX, 1e-9);
  const spanY = Math.max(maxY - minY, 1e-9);
  const scale = Math.min((W - 2 * PAD) / spanX, (H - 2 * PAD) / spanY);
  const offX = (W - spanX * scale) / 2;
  const offY = (H - spanY * scale) / 2;
  const px = (lon: number, lat: number): [number, number] => [
    Math.round((offX + (lon - minX) * scale) * 10) / 10,
    Math.round((H - offY - (mercY(lat) - minY) * scale) * 10) / 10,
  ];

  const line = drawn.map((p) => px(p[0], p[1]).join(',')).join(' ');
  const [sx, sy] = px(drawn[0][0], drawn[0][1]);
  const last = drawn[drawn.length - 1];
  const [fx, fy] = px(last[0], last[1]);
  const waypoints = input.waypoints
    .map((w) => {
      const [x, y] = px(w.lon, w.lat);
      return `<g class="wpt"><circle cx="${x}" cy="${y}" r="5"><title>${esc(w.name)}</title></circle><text x="${x + 8}" y="${y + 4}">${esc(w.name)}</text></g>`;
    })
    .join('');

  const t = COURSE_MAP_TEXTS[input.language];
  const n = numbers(input.locale);
  const stats = t.stats(n.km(input.lengthM), n.m(input.climbM), n.m(input.descentM));

  return `<!doctype html>
<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(input.title)} · ${esc(input.productName)}</title>
<style>${COURSE_MAP_STYLE}</style>
</head>
<body>
<h1>${esc(input.title)}</h1>
<p class="stats">${esc(stats)}</p>
<figure>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(t.mapLabel(input.title))}">
<polyline class="course" points="${line}"/>
${waypoints}
<circle class="finish" cx="${fx}" cy="${fy}" r="6"><title>${esc(t.finish)}</title></circle>
<circle class="start" cx="${sx}" cy="${sy}" r="9"><title>${esc(t.start)}</title></circle>
${scaleBar(scale, (input.points[0][1] + last[1]) / 2)}
</svg>
<figcaption>${esc(t.legend)}</figcaption>
</figure>
${elevationProfile(input, t, n)}
<p><a href="${esc(input.gpxUrl)}">${esc(t.downloadGpx)}</a> · <a href="${esc(input.geoJsonUrl)}">${esc(t.downloadGeoJson)}</a></p>
</body>
</html>
`;
}

/** A 1/2/5 × 10^n metre bar of at most 160 px; `scale` is pixels per degree of longitude. */
function scaleBar(scale: number, lat: number): string {
  const metresPerPx = (111_320 * Math.cos((lat * Math.PI) / 180)) / scale;
  if (!Number.isFinite(metresPerPx) || metresPerPx <= 0) return '';
  const max = 160 * metresPerPx;
  const pow = 10 ** Math.floor(Math.log10(max));
  const metres = [5, 2, 1].map((m) => m * pow).find((m) => m <= max)!;
  const px = Math.round(metres / metresPerPx);
  const label = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  const y = H - 14;
  return `<g class="scale"><path d="M${PAD},${y - 5} V${y} H${PAD + px} V${y - 5}" fill="none" stroke="#1b1f24" stroke-width="2"/><text x="${PAD + px + 6}" y="${y}" font-size="12">${label}</text></g>`;
}

function elevationProfile(input: CourseMapInput, t: CourseMapTexts, n: ReturnType<typeof numbers>): string {
  if (!input.hasElevation) return '';
  const cum = cumulativeDistances(input.points);
  const samples = thin(
    input.points
      .map((p, i) => [cum[i], p[2]] as const)
      .filter((s): s is readonly [number, number] => s[1] !== null),
    1000,
  );
  if (samples.length < 2) return '';
  const PH = 160;
  const total = Math.max(cum[cum.length - 1], 1);
  const eles = samples.map((s) => s[1]);
  const lo = Math.min(...eles);
  const hi = Math.max(Math.max(...eles), lo + 10);
  const pt = (d: number, e: number) =>
    `${Math.round((d / total) * W * 10) / 10},${Math.round((PH - 10 - ((e - lo) / (hi - lo)) * (PH - 20)) * 10) / 10}`;
  const path = `0,${PH} ${samples.map((s) => pt(s[0], s[1])).join(' ')} ${W},${PH}`;
  return `<figure>
<svg viewBox="0 0 ${W} ${PH}" role="img" aria-label="${esc(t.profileLabel(n.m(lo), n.m(hi)))}">
<polygon class="profile" points="${path}"/>
</svg>
<figcaption>${esc(t.profileCaption(n.m(lo), n.m(hi), n.km(total)))}</figcaption>
</figure>`;
}
