import { MapShareKmlError, parseMapShareKml } from '@racebeacon/domain';
import type { AlertInput, FixInput } from '../types';
import { cleanText, headingOf, isLatLon } from '../validate';
import { parseError, readBatch, type AdapterResult } from './contract';

/**
 * Garmin MapShare (every inReach plan): one poll of a device's raw KML feed as a batch. The feed belongs to one
 * device (polled by its MapShare name), so every message is attributed to that device by id, whatever IMEI it
 * carries. A message sent without a GPS fix ("Valid GPS Fix" False) is no position; "In Emergency" True is an SOS
 * (as an inReach IPC Declare/Confirm SOS), an event saying the emergency was cancelled is an `sos-cancel`; a text
 * outside an emergency is handed to race HQ for the help keyword, as an inReach free text is.
 */
export function readMapShareFeed(kml: string, deviceId: number): AdapterResult {
  let feed;
  try {
    feed = parseMapShareKml(kml);
  } catch (err) {
    if (err instanceof MapShareKmlError) return parseError('source_error', err.message);
    throw err;
  }
  const device = { deviceId };
  const fixes: FixInput[] = [];
  const alerts: AlertInput[] = [];
  const texts: AlertInput[] = [];
  const rejected = [...feed.rejected];
  feed.records.forEach((r, index) => {
    const at = r.time ?? new Date(NaN);
    const located = r.validFix && isLatLon(r.lat, r.lon);
    if (r.time && r.validFix && r.lat !== null && r.lon !== null) {
      fixes.push({
        device,
        source: 'mapshare',
        fixTime: r.time,
        lat: r.lat,
        lon: r.lon,
        altitude: r.elevationM,
        speed: r.velocityKmh === null ? null : r.velocityKmh / 3.6,
        batteryPercent: null,
        batteryState: null,
        heading: headingOf(r.courseDeg),
      });
    } else if (r.time && !r.validFix) rejected.push({ index, reason: 'no valid GPS fix' });
    const where = { lat: located ? r.lat : null, lon: located ? r.lon : null };
    const text = cleanText(r.text);
    const cancelled = /emergency/i.test(r.event ?? '') && /cancel/i.test(r.event ?? '');
    if (r.inEmergency || cancelled) {
      alerts.push({
        device,
        kind: r.inEmergency ? 'sos' : 'sos-cancel',
        at,
        ...(r.time ? {} : { sourceTime: r.timeText }),
        message: text ?? cleanText(r.event),
        ...where,
      });
    } else if (text && r.time) texts.push({ device, kind: 'message', at, message: text, ...where });
  });
  return readBatch({ fixes, alerts, texts, rejected, received: feed.records.length });
}
