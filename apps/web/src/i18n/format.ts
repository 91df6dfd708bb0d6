import { current, type Units } from './settings';

/**
 * The one place the app writes distances, paces, times and dates: in the viewer's locale (Intl) and units (km with
 * min/km, or miles with min/mi). Each function takes the locale and units from the current settings unless told
 * (tests, or a caller that needs a fixed one).
 */
export interface FormatOptions {
  locale?: string;
  units?: Units;
}

export const METRES_PER_MILE = 1609.344;
export const METRES_PER_FOOT = 0.3048;
const DASH = '–';

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let nf = numberFormats.get(key);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, options);
    numberFormats.set(key, nf);
  }
  return nf;
}

const localeOf = (o?: FormatOptions) => o?.locale ?? current.locale;
const unitsOf = (o?: FormatOptions) => o?.units ?? current.units;

/** A number with exactly `digits` decimals, no grouping ("12.50", "12,50"). */
export function formatNumber(value: number, digits: number, o?: FormatOptions): string {
  return numberFormat(localeOf(o), {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  }).format(value);
}

/** "km" or "mi": the unit distances are shown in. */
export function distanceUnit(o?: FormatOptions): string {
  return unitsOf(o) === 'mi' ? 'mi' : 'km';
}

/** A distance in km as the number in the viewer's unit, without the unit ("12.5", "7.8"). */
export function formatDistanceNumber(km: number, digits = 1, o?: FormatOptions): string {
  const value = unitsOf(o) === 'mi' ? (km * 1000) / METRES_PER_MILE : km;
  return formatNumber(value, digits, o);
}

/** A distance given in km: "12.50 km", "12,50 km", "7.77 mi"; a dash without one. */
export function formatDistance(km: number | null | undefined, digits = 2, o?: FormatOptions): string {
  if (km === null || km === undefined || !Number.isFinite(km)) return DASH;
  return `${formatDistanceNumber(km, digits, o)} ${distanceUnit(o)}`;
}

/** A course length given in metres: two decimals under 10 km (or 10 mi), one above. */
export function formatLength(metres: number, o?: FormatOptions): string {
  const inUnit = unitsOf(o) === 'mi' ? metres / METRES_PER_MILE : metres / 1000;
  return `${formatNumber(inUnit, inUnit < 10 ? 2 : 1, o)} ${distanceUnit(o)}`;
}

/** A height (climb) given in metres: "1,234 m", or feet with miles: "4,049 ft". */
export function formatHeight(metres: number, o?: FormatOptions): string {
  const feet = unitsOf(o) === 'mi';
  const value = Math.round(feet ? metres / METRES_PER_FOOT : metres);
  return `${numberFormat(localeOf(o), { maximumFractionDigits: 0 }).format(value)} ${feet ? 'ft' : 'm'}`;
}

/** A pace given in seconds per km: "5:30 /km", or per mile "8:51 /mi"; a dash without one. */
export function formatPace(secPerKm: number | null | undefined, o?: FormatOptions): string {
  if (secPerKm === null || secPerKm === undefined || !Number.isFinite(secPerKm) || secPerKm <= 0) return DASH;
  const mi = unitsOf(o) === 'mi';
  const s = Math.round(mi ? (secPerKm * METRES_PER_MILE) / 1000 : secPerKm);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} /${mi ? 'mi' : 'km'}`;
}

/** "1:02:03": hours, minutes and seconds (the same in every language). */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return DASH;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** "12.5%" / "12,5 %": a percentage with one decimal. */
export function formatPercent(percent: number, o?: FormatOptions): string {
  return numberFormat(localeOf(o), {
    style: 'percent',
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  }).format(percent / 100);
}

function validDate(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A time of day, hours and minutes ("14:05", "02:05 PM"); a dash without one. */
export function formatClock(iso: string | null | undefined, o?: FormatOptions): string {
  const d = validDate(iso);
  return d ? d.toLocaleTimeString(localeOf(o), { hour: '2-digit', minute: '2-digit' }) : DASH;
}

/** A time of day with seconds ("14:05:09"). */
export function formatClockSeconds(iso: string, o?: FormatOptions): string {
  const d = validDate(iso);
  return d
    ? d.toLocaleTimeString(localeOf(o), { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : DASH;
}

/** A date and time, medium date and short time ("Mar 20, 2027, 9:15 AM"); `empty` without one. */
export function formatDateTimeMedium(iso: string | null | undefined, empty = '-', o?: FormatOptions): string {
  const d = validDate(iso);
  return d ? d.toLocaleString(localeOf(o), { dateStyle: 'medium', timeStyle: 'short' }) : empty;
}

/** "Sat 6 Jun, 09:00": a start time a spectator can plan by; a dash without one. */
export function formatDayTime(iso: string | null | undefined, o?: FormatOptions): string {
  const d = validDate(iso);
  return d
    ? d.toLocaleString(localeOf(o), {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
      })
    : DASH;
}

/** "Sat 09:30": a weekday and a time of day (a cutoff); a dash without one. */
export function formatWeekdayTime(iso: string | null | undefined, o?: FormatOptions): string {
  const d = validDate(iso);
  return d ? d.toLocaleString(localeOf(o), { weekday: 'short', hour: '2-digit', minute: '2-digit' }) : DASH;
}

/** A date and a time to the second ("Mar 20, 2027, 9:15:04 AM"). */
export function formatTimestampSeconds(iso: string, o?: FormatOptions): string {
  const d = validDate(iso);
  return d ? d.toLocaleString(localeOf(o), { dateStyle: 'medium', timeStyle: 'medium' }) : DASH;
}

/** Any date and time in the viewer's locale (the browser's default style). */
export function formatTimestamp(iso: string, o?: FormatOptions): string {
  return new Date(iso).toLocaleString(localeOf(o));
}

/** A calendar date written out ("October 1, 2025", "1 octobre 2025"), the day as given (no time-zone shift). */
export function formatLongDate(isoDate: string, o?: FormatOptions): string {
  const d = validDate(`${isoDate.slice(0, 10)}T00:00:00Z`);
  return d ? d.toLocaleDateString(localeOf(o), { dateStyle: 'long', timeZone: 'UTC' }) : DASH;
}

/** A number of minutes with its unit ("10 min", "10 Min."). */
export function formatMinutes(minutes: number, o?: FormatOptions): string {
  return numberFormat(localeOf(o), { style: 'unit', unit: 'minute', unitDisplay: 'short' }).format(minutes);
}

/**
 * An alert's duration given in ms, by the rules of the server's English (domain `formatAlertDuration`): "45 s",
 * "2.5 min" ("2,5 min"), "34 min", "2 h 5 min". In English exactly the server's text.
 */
export function formatAlertDuration(ms: number, o?: FormatOptions): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${formatNumber(Math.round(s), 0, o)} s`;
  const minutes = s / 60;
  if (minutes < 10) {
    const r = Math.round(minutes * 10) / 10;
    return `${formatNumber(r, Number.isInteger(r) ? 0 : 1, o)} min`;
  }
  if (minutes < 120) return `${formatNumber(Math.floor(minutes), 0, o)} min`;
  const h = Math.floor(minutes / 60);
  return `${formatNumber(h, 0, o)} h ${formatNumber(Math.floor(minutes - h * 60), 0, o)} min`;
}
