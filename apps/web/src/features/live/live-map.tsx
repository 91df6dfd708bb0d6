import { useEffect, useRef } from 'react';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { LeaderboardRow } from '@racebeacon/domain';
import type { CourseTrack, TrailPoint } from './live-types';
import { runnerLabel, STATUS_LABEL } from './live-format';

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
  onSelect(runnerId: number): void;
  tileUrl: string;
  tileAttribution: string;
}

interface RunnerLayer {
  marker: L.Marker;
  trail: L.Polyline;
  iconKey: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function runnerIcon(row: LeaderboardRow, followed: boolean): L.DivIcon {
  const label = escapeHtml(row.BibNumber ?? String(row.RunnerId));
  return L.divIcon({
    className: `live-runner live-runner--${row.Status}${followed ? ' live-runner--followed' : ''}`,
    html: `<span class="live-runner__pin" data-runner-id="${row.RunnerId}">${label}</span>`,
    iconSize: [30, 22],
    iconAnchor: [15, 11],
  });
}

export default function LiveMap(props: LiveMapProps) {
  const { track, rows, trails, followId, onSelect, tileUrl, tileAttribution } = props;
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const courseLayer = useRef<L.LayerGroup | null>(null);
  const runnerLayers = useRef(new Map<number, RunnerLayer>());
  const onSelectRef = useRef(onSelect);
  onSelectRef.current = onSelect;
  const lastFollowed = useRef<number | null>(null);
  const fitted = useRef(false);

  // The map itself, once.
  useEffect(() => {
    if (!el.current) return;
    const m = L.map(el.current, { zoomControl: true, attributionControl: true }).setView([46.8, 8.2], 8);
    const tiles = L.tileLayer(tileUrl, { attribution: tileAttribution, maxZoom: 19, crossOrigin: true });
    tiles.addTo(m);
    map.current = m;
    const layers = runnerLayers.current;
    return () => {
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
    L.marker(start, { icon: flag('live-flag--start', 'S'), title: 'Start', zIndexOffset: -100 }).addTo(group);
    L.marker(finish, { icon: flag('live-flag--finish', 'F'), title: 'Finish', zIndexOffset: -100 }).addTo(
      group,
    );
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
    m.fitBounds(line.getBounds(), { padding: [20, 20] });
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
      const iconKey = `${row.Status}|${row.BibNumber}|${followed}`;
      const trailPoints = (trails.get(row.RunnerId) ?? []).map((p) => L.latLng(p[1], p[2]));
      let layer = layers.get(row.RunnerId);
      if (!layer) {
        const marker = L.marker(at, {
          icon: runnerIcon(row, followed),
          title: `${runnerLabel(row)} ${row.FirstName} ${row.LastName} — ${STATUS_LABEL[row.Status] ?? row.Status}`,
          alt: `${runnerLabel(row)} ${row.FirstName} ${row.LastName}`,
          riseOnHover: true,
        });
        marker.on('click', () => onSelectRef.current(row.RunnerId));
        const trail = L.polyline(trailPoints, {
          className: `live-trail live-trail--${row.Status}`,
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
          layer.marker.setIcon(runnerIcon(row, followed));
          layer.trail.setStyle({ className: `live-trail live-trail--${row.Status}` });
          layer.iconKey = iconKey;
        }
      }
      layer.marker.setZIndexOffset(followed ? 1000 : 0);
      if (followed) {
        // Zoom in when following starts; afterwards only pan, so the viewer's own zoom is kept.
        if (lastFollowed.current !== row.RunnerId) m.setView(at, Math.max(m.getZoom(), 14));
        else m.panTo(at, { animate: true });
      }
    }
    lastFollowed.current = followId;
    // No course to frame the map: frame the runners once.
    if (!fitted.current && seen.size > 0 && (!track || !track.HasCourse)) {
      const bounds = L.latLngBounds([...seen].map((id) => layers.get(id)!.marker.getLatLng()));
      m.fitBounds(bounds, { padding: [30, 30], maxZoom: 15 });
      fitted.current = true;
    }
    for (const [id, layer] of layers) {
      if (!seen.has(id)) {
        layer.marker.remove();
        layer.trail.remove();
        layers.delete(id);
      }
    }
  }, [rows, trails, followId, track]);

  return (
    <div
      ref={el}
      className="live-map"
      role="region"
      aria-label="Live map of the course and runners"
      data-testid="live-map"
    />
  );
}
