import { useEffect, useRef } from 'react';
import { t } from '../../i18n';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import type { CourseTrack, RunnerPositions, TrailPoint } from '@racebeacon/domain/live';
import type { Alert } from './alert-types';
import { alertSubject, KIND_LABEL } from './hq-store';

/**
 * The HQ map (its own small Leaflet map, loaded lazily with the HQ chunk): the course, every runner's last hour of
 * track and newest position, and the alerting runners highlighted with their bib. `focus` centres the map on a
 * point (the alert's "Show on map").
 */

export interface MapFocus {
  lat: number;
  lon: number;
  /** Changes on every request, so centring the same place twice works. */
  seq: number;
}

export interface HqMapProps {
  track: CourseTrack | null;
  positions: readonly RunnerPositions[];
  /** Runner id → bib label for the plain markers' tooltips. */
  labels: ReadonlyMap<number, string>;
  alerts: readonly Alert[];
  focus: MapFocus | null;
  now: number;
  tileUrl: string;
  tileAttribution: string;
}

const HOUR = 3_600_000;
const PADDING: L.PointTuple = [24, 24];

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The last hour of a trail, ending at the newest fix (not the browser's clock: a silent runner keeps a track). */
export function lastHour(trail: readonly TrailPoint[], now: number): [number, number][] {
  if (!trail.length) return [];
  const end = Math.min(now, trail[trail.length - 1][0]);
  return trail.filter((p) => p[0] >= end - HOUR).map((p) => [p[1], p[2]]);
}

export default function HqMap(props: HqMapProps) {
  const { track, positions, labels, alerts, focus, now, tileUrl, tileAttribution } = props;
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const framed = useRef(false);

  useEffect(() => {
    if (!el.current) return;
    const m = L.map(el.current, { zoomSnap: 0.25, zoomControl: false }).setView([46.8, 8.2], 8);
    L.control.zoom({ zoomInTitle: t('map.zoomIn'), zoomOutTitle: t('map.zoomOut') }).addTo(m);
    L.tileLayer(tileUrl, { attribution: tileAttribution, maxZoom: 19, crossOrigin: true }).addTo(m);
    map.current = m;
    const container = el.current;
    const ro = new ResizeObserver(() => m.invalidateSize({ animate: false }));
    ro.observe(container);
    return () => {
      ro.disconnect();
      m.remove();
      map.current = null;
      framed.current = false;
    };
  }, [tileUrl, tileAttribution]);

  // The course line and aid stations.
  useEffect(() => {
    const m = map.current;
    if (!m || !track?.HasCourse || track.Line.length < 2) return;
    const group = L.layerGroup().addTo(m);
    const line = L.polyline(track.Line, {
      color: '#c2410c',
      weight: 4,
      opacity: 0.7,
      className: 'hq-course',
    });
    line.addTo(group);
    for (const w of track.Waypoints) {
      L.circleMarker([w.Latitude, w.Longitude], { radius: 5, color: '#1d4ed8', weight: 2 })
        .bindTooltip(escapeHtml(w.Name))
        .addTo(group);
    }
    if (!framed.current) {
      m.fitBounds(line.getBounds(), { padding: PADDING, animate: false });
      framed.current = true;
    }
    return () => {
      group.remove();
    };
  }, [track]);

  // Runners and alerts, redrawn together (an HQ map shows at most a few thousand small markers).
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const group = L.layerGroup().addTo(m);
    const alerting = new Map<number, Alert>();
    for (const a of alerts) if (a.RunnerId !== null && !alerting.has(a.RunnerId)) alerting.set(a.RunnerId, a);
    const points: L.LatLng[] = [];
    for (const p of positions) {
      const alert = alerting.get(p.RunnerId);
      const trail = lastHour(p.Trail, now);
      if (trail.length > 1)
        L.polyline(trail, {
          className: alert ? 'hq-trail hq-trail--alert' : 'hq-trail',
          weight: alert ? 3 : 2,
          opacity: alert ? 0.9 : 0.5,
          interactive: false,
        }).addTo(group);
      if (!p.Latest || alert) continue;
      const at = L.latLng(p.Latest[1], p.Latest[2]);
      points.push(at);
      L.circleMarker(at, { radius: 4, weight: 1, color: '#0b3a5b', fillOpacity: 0.7, className: 'hq-runner' })
        .bindTooltip(`#${escapeHtml(labels.get(p.RunnerId) ?? String(p.RunnerId))}`)
        .addTo(group);
    }
    const latest = new Map(positions.map((p) => [p.RunnerId, p.Latest]));
    for (const a of alerts) {
      const fix = a.RunnerId !== null ? latest.get(a.RunnerId) : null;
      const lat = fix ? fix[1] : a.Latitude;
      const lon = fix ? fix[2] : a.Longitude;
      if (lat === null || lon === null) continue;
      const at = L.latLng(lat, lon);
      points.push(at);
      const label = escapeHtml(a.BibNumber ?? a.DeviceName ?? '?');
      L.marker(at, {
        icon: L.divIcon({
          className: `hq-alert-marker hq-alert-marker--${a.Kind} hq-alert-marker--${a.State}`,
          html: `<span class="hq-alert-marker__pin" data-alert-id="${a.AlertId}">${label}</span>`,
          iconSize: [34, 24],
          iconAnchor: [17, 12],
        }),
        title: `${alertSubject(a)} — ${KIND_LABEL[a.Kind]}`,
        alt: `${alertSubject(a)} — ${KIND_LABEL[a.Kind]}`,
        zIndexOffset: a.Kind === 'sos' ? 2000 : 1000,
        riseOnHover: true,
      })
        .bindPopup(`<strong>${escapeHtml(alertSubject(a))}</strong><br>${KIND_LABEL[a.Kind]}`)
        .addTo(group);
    }
    // No course to frame: frame whatever is known, once.
    if (!framed.current && points.length > 0 && !track?.HasCourse) {
      m.fitBounds(L.latLngBounds(points), { padding: PADDING, maxZoom: 15, animate: false });
      framed.current = true;
    }
    return () => {
      group.remove();
    };
  }, [positions, alerts, labels, now, track]);

  useEffect(() => {
    const m = map.current;
    if (!m || !focus) return;
    m.setView([focus.lat, focus.lon], Math.max(m.getZoom(), 15), { animate: false });
    framed.current = true;
  }, [focus]);

  return <div ref={el} className="hq-map" role="region" aria-label={t('hq.mapLabel')} data-testid="hq-map" />;
}
