import { useEffect, useRef } from 'react';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import type { CourseTrack, TrailPoint } from './live-types';
import { formatClock, runnerLabel, STATUS_LABEL } from './live-format';
import { t } from '../../i18n';
import { shownStatus, type RacePhase, type ShownStatus } from './live-clock';

/**
 * The live map: one Leaflet map, drawn imperatively (Leaflet owns its DOM) from props. This module is loaded
 * lazily, so Leaflet and its CSS are not part of the first screen. Runner markers are divIcons (no images), so the
 * map is useful even when tiles cannot load.
 */

export interface LiveMapProps {
  track: CourseTrack | null;
  rows: LeaderboardRow[];
  trails: ReadonlyMap<number, TrailPoint[]>;
  followId: number | null;
  /** Runners the viewer follows (kept in the browser): highlighted. */
  pinnedIds?: ReadonlySet<number>;
  phase: RacePhase;
  onSelect(runnerId: number): void;
  tileUrl: string;
  tileAttribution: string;
}

interface RunnerLayer {
  marker: L.Marker;
  trail: L.Polyline;
  iconKey: string;
}

/** A silent runner's estimate: a hollow marker and its range along the course. */
interface EstimateLayer {
  marker: L.Marker;
  range: L.Polyline;
}

/** Metres between two [lat, lon] points (equirectangular: fine over a course's thinned segments). */
function metres(a: [number, number], b: [number, number]): number {
  const k = Math.PI / 180;
  const x = (b[1] - a[1]) * k * Math.cos(((a[0] + b[0]) / 2) * k);
  const y = (b[0] - a[0]) * k;
  return Math.hypot(x, y) * 6_371_000;
}

/**
 * The part of the course line between two distances (km along the course), for an estimate's range. The thinned
 * line is a little shorter than the course: its distances are scaled to the course length.
 */
export function courseSlice(track: CourseTrack, fromKm: number, toKm: number): [number, number][] {
  const line = track.Line;
  const cum = [0];
  for (let i = 1; i < line.length; i++) cum.push(cum[i - 1] + metres(line[i - 1], line[i]));
  const total = cum[cum.length - 1];
  if (total <= 0 || line.length < 2) return [];
  const scale = track.LengthM > 0 ? total / track.LengthM : 1;
  const at = (m: number): [number, number] => {
    const d = Math.min(total, Math.max(0, m * scale));
    let i = 1;
    while (i < cum.length - 1 && cum[i] < d) i++;
    const f = cum[i] > cum[i - 1] ? (d - cum[i - 1]) / (cum[i] - cum[i - 1]) : 0;
    return [
      line[i - 1][0] + (line[i][0] - line[i - 1][0]) * f,
      line[i - 1][1] + (line[i][1] - line[i - 1][1]) * f,
    ];
  };
  const from = fromKm * 1000;
  const to = Math.max(from, toKm * 1000);
  const out: [number, number][] = [at(from)];
  for (let i = 0; i < line.length; i++) {
    const d = cum[i] / scale;
    if (d > from && d < to) out.push(line[i]);
  }
  out.push(at(to));
  return out;
}

function estimateIcon(row: LeaderboardRow): L.DivIcon {
  const label = escapeHtml(row.BibNumber ?? String(row.RunnerId));
  return L.divIcon({
    className: 'live-estimate',
    html: `<span class="live-estimate__pin" data-runner-id="${row.RunnerId}">${label} est.</span>`,
    iconSize: [44, 22],
    iconAnchor: [22, 11],
  });
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Room around the course when the map frames it, so start/finish flags and km labels are not cut at the edge. */
const COURSE_PADDING: L.PointTuple = [24, 24];

function runnerIcon(row: LeaderboardRow, status: ShownStatus, followed: boolean, pinned = false): L.DivIcon {
  const label = escapeHtml(row.BibNumber ?? String(row.RunnerId));
  return L.divIcon({
    className: `live-runner live-runner--${status}${followed ? ' live-runner--followed' : ''}${pinned ? ' live-runner--pinned' : ''}`,
    html: `<span class="live-runner__pin" data-runner-id="${row.RunnerId}">${label}</span>`,
    iconSize: [30, 22],
    iconAnchor: [15, 11],
  });
}

export default function LiveMap(props: LiveMapProps) {
  const { track, rows, trails, followId, phase, onSelect, tileUrl, tileAttribution, pinnedIds } = props;
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const courseLayer = useRef<L.LayerGroup | null>(null);
  const runnerLayers = useRef(new Map<number, RunnerLayer>());
  const estimateLayers = useRef(new Map<number, EstimateLayer>());
  const onSelectRef = useRef(onSelect);
  onSelectRef.current = onSelect;
  const lastFollowed = useRef<number | null>(null);
  const fitted = useRef(false);
  /** What the map frames when it (re)fits: the course, else the runners seen at the first fit. */
  const frame = useRef<L.LatLngBounds | null>(null);
  /** The viewer panned or zoomed: a resize no longer reframes the map over their choice. */
  const userMoved = useRef(false);
  const followRef = useRef(followId);
  followRef.current = followId;

  // The map itself, once.
  useEffect(() => {
    if (!el.current) return;
    const m = L.map(el.current, {
      zoomControl: false,
      attributionControl: true,
      // Quarter zoom steps when framing, so the course fills a small phone map instead of a quarter of it.
      zoomSnap: 0.25,
    }).setView([46.8, 8.2], 8);
    // Leaflet's zoom buttons, labelled in the viewer's language.
    m.zoomControl = L.control.zoom({ zoomInTitle: t('map.zoomIn'), zoomOutTitle: t('map.zoomOut') }).addTo(m);
    const tiles = L.tileLayer(tileUrl, { attribution: tileAttribution, maxZoom: 19, crossOrigin: true });
    tiles.addTo(m);
    map.current = m;
    // Only a person drags or zooms with the wheel/pinch/controls; programmatic fits and follows do not count.
    m.on('dragstart', () => (userMoved.current = true));
    const container = el.current;
    const markUser = () => (userMoved.current = true);
    container.addEventListener('wheel', markUser, { passive: true });
    container.addEventListener('dblclick', markUser);
    m.zoomControl?.getContainer()?.addEventListener('click', markUser);
    // The container's size settles after the layout (lazy chunk, fonts, the leaderboard below, a phone rotating):
    // tell Leaflet, and frame the course again unless the viewer has moved the map or is following someone.
    let lastSize = '';
    const ro = new ResizeObserver(() => {
      const size = `${container.clientWidth}x${container.clientHeight}`;
      if (size === lastSize || container.clientWidth === 0) return;
      lastSize = size;
      m.invalidateSize({ animate: false });
      if (frame.current && !userMoved.current && followRef.current === null)
        m.fitBounds(frame.current, { padding: COURSE_PADDING, animate: false });
    });
    ro.observe(container);
    const layers = runnerLayers.current;
    const estimates = estimateLayers.current;
    return () => {
      estimates.clear();
      ro.disconnect();
      container.removeEventListener('wheel', markUser);
      container.removeEventListener('dblclick', markUser);
      m.remove();
      map.current = null;
      layers.clear();
    };
  }, [tileUrl, tileAttribution]);

  // The course: line, start/finish, km markers, waypoints.
  useEffect(() => {
    const m = map.current;
    if (!m || !track || !track.HasCourse || track.Line.length < 2) return;
    const group = L.layerGroup().addTo(m);
    const line = L.polyline(track.Line, {
      color: '#c2410c',
      weight: 4,
      opacity: 0.85,
      className: 'live-course',
    });
    line.addTo(group);
    const start = track.Line[0];
    const finish = track.Line[track.Line.length - 1];
    const flag = (cls: string, text: string) =>
      L.divIcon({ className: `live-flag ${cls}`, html: `<span>${text}</span>`, iconSize: [24, 24] });
    L.marker(start, { icon: flag('live-flag--start', 'S'), title: t('map.start'), zIndexOffset: -100 }).addTo(
      group,
    );
    L.marker(finish, {
      icon: flag('live-flag--finish', 'F'),
      title: t('map.finish'),
      zIndexOffset: -100,
    }).addTo(group);
    for (const k of track.KmMarkers) {
      L.marker([k.Latitude, k.Longitude], {
        icon: L.divIcon({ className: 'live-km', html: `<span>${k.Km}</span>`, iconSize: [20, 14] }),
        title: `km ${k.Km}`,
        interactive: false,
        keyboard: false,
        zIndexOffset: -200,
      }).addTo(group);
    }
    for (const w of track.Waypoints) {
      L.circleMarker([w.Latitude, w.Longitude], { radius: 5, color: '#1d4ed8', weight: 2 })
        .bindTooltip(`${escapeHtml(w.Name)} (km ${(w.DistanceM / 1000).toFixed(1)})`)
        .addTo(group);
    }
    frame.current = line.getBounds();
    m.invalidateSize({ animate: false });
    m.fitBounds(frame.current, { padding: COURSE_PADDING, animate: false });
    fitted.current = true;
    courseLayer.current = group;
    return () => {
      group.remove();
      courseLayer.current = null;
    };
  }, [track]);

  // Runners: markers (moved in place, re-iconed only when status or follow changes) and trails.
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const layers = runnerLayers.current;
    const seen = new Set<number>();
    for (const row of rows) {
      if (row.Latitude === null || row.Longitude === null) continue;
      seen.add(row.RunnerId);
      const at = L.latLng(row.Latitude, row.Longitude);
      const followed = row.RunnerId === followId;
      const status = shownStatus(row.Status, phase);
      const pinned = pinnedIds?.has(row.RunnerId) ?? false;
      const iconKey = `${status}|${row.BibNumber}|${followed}|${pinned}`;
      const trailPoints = (trails.get(row.RunnerId) ?? []).map((p) => L.latLng(p[1], p[2]));
      let layer = layers.get(row.RunnerId);
      if (!layer) {
        const marker = L.marker(at, {
          icon: runnerIcon(row, status, followed, pinned),
          title: `${runnerLabel(row)} ${row.FirstName} ${row.LastName} — ${STATUS_LABEL[status] ?? status}`,
          alt: `${runnerLabel(row)} ${row.FirstName} ${row.LastName}`,
          riseOnHover: true,
        });
        marker.on('click', () => onSelectRef.current(row.RunnerId));
        const trail = L.polyline(trailPoints, {
          className: `live-trail live-trail--${status}`,
          weight: 2,
          opacity: 0.6,
          interactive: false,
        });
        trail.addTo(m);
        marker.addTo(m);
        layer = { marker, trail, iconKey };
        layers.set(row.RunnerId, layer);
      } else {
        layer.marker.setLatLng(at);
        layer.trail.setLatLngs(trailPoints);
        if (layer.iconKey !== iconKey) {
          layer.marker.setIcon(runnerIcon(row, status, followed, pinned));
          layer.trail.setStyle({ className: `live-trail live-trail--${status}` });
          layer.iconKey = iconKey;
        }
      }
      layer.marker.setZIndexOffset(followed ? 1000 : pinned ? 500 : 0);
      if (followed) {
        // Zoom in when following starts; afterwards only pan, so the viewer's own zoom is kept.
        if (lastFollowed.current !== row.RunnerId) m.setView(at, Math.max(m.getZoom(), 14));
        else m.panTo(at, { animate: true });
      }
    }
    lastFollowed.current = followId;
    // Silent runners' estimates: drawn apart from the fixes, hollow, labelled "est.", with their range.
    const estimates = estimateLayers.current;
    const estimated = new Set<number>();
    for (const row of rows) {
      if (row.EstimatedLatitude == null || row.EstimatedLongitude == null) continue;
      if (phase === 'finished') continue;
      estimated.add(row.RunnerId);
      const at = L.latLng(row.EstimatedLatitude, row.EstimatedLongitude);
      const range =
        track && track.HasCourse && row.EstimatedDistanceKmMin != null && row.EstimatedDistanceKmMax != null
          ? courseSlice(track, row.EstimatedDistanceKmMin, row.EstimatedDistanceKmMax)
          : [];
      let layer = estimates.get(row.RunnerId);
      if (!layer) {
        const marker = L.marker(at, {
          icon: estimateIcon(row),
          title: `${runnerLabel(row)} ${row.FirstName} ${row.LastName} — ${t('map.estimated', { time: formatClock(row.LastPingTime) })}`,
          alt: t('map.estimatedAlt', { runner: runnerLabel(row) }),
          opacity: 0.95,
        });
        marker.on('click', () => onSelectRef.current(row.RunnerId));
        const line = L.polyline(range, {
          className: 'live-estimate-range',
          weight: 6,
          opacity: 0.8,
          interactive: false,
        });
        line.addTo(m);
        marker.addTo(m);
        layer = { marker, range: line };
        estimates.set(row.RunnerId, layer);
      } else {
        layer.marker.setLatLng(at);
        layer.range.setLatLngs(range);
      }
    }
    for (const [id, layer] of estimates) {
      if (!estimated.has(id)) {
        layer.marker.remove();
        layer.range.remove();
        estimates.delete(id);
      }
    }
    // No course to frame the map: frame the runners once.
    if (!fitted.current && seen.size > 0 && (!track || !track.HasCourse)) {
      const bounds = L.latLngBounds([...seen].map((id) => layers.get(id)!.marker.getLatLng()));
      m.fitBounds(bounds, { padding: [30, 30], maxZoom: 15 });
      frame.current = bounds;
      fitted.current = true;
    }
    for (const [id, layer] of layers) {
      if (!seen.has(id)) {
        layer.marker.remove();
        layer.trail.remove();
        layers.delete(id);
      }
    }
  }, [rows, trails, followId, track, phase, pinnedIds]);

  return (
    <div ref={el} className="live-map" role="region" aria-label={t('map.label')} data-testid="live-map" />
  );
}
