import { useEffect, useRef, useState } from 'react';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import type { CourseTrack } from './live-types';
import { runnerLabel } from './live-format';
import { t, useI18n } from '../../i18n';
import { formatDistanceNumber } from '../../i18n/format';
import { shownStatus, type RacePhase } from './live-clock';

const H = 160;
const PAD = { left: 44, right: 10, top: 10, bottom: 24 };

/** Elevation at a distance, interpolated between profile samples. */
function eleAt(profile: [number, number][], d: number): number {
  if (d <= profile[0][0]) return profile[0][1];
  for (let i = 1; i < profile.length; i++) {
    if (profile[i][0] >= d) {
      const [d0, e0] = profile[i - 1];
      const [d1, e1] = profile[i];
      return d1 === d0 ? e1 : e0 + ((e1 - e0) * (d - d0)) / (d1 - d0);
    }
  }
  return profile[profile.length - 1][1];
}

/** The course's elevation profile (SVG) with each runner placed at their distance along the course. */
export function ElevationProfile(props: {
  track: CourseTrack;
  rows: LeaderboardRow[];
  followId: number | null;
  phase: RacePhase;
  onSelect(runnerId: number): void;
}) {
  const { track, rows, followId, phase, onSelect } = props;
  useI18n();
  // Drawn in CSS pixels of its actual width, so labels stay legible from a phone to a desktop.
  const ref = useRef<HTMLElement>(null);
  const [W, setW] = useState(800);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => setW(Math.max(280, Math.round(entry.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  if (!track.HasElevation || track.Profile.length < 2 || track.LengthM <= 0) {
    return (
      <p className="live-muted" ref={ref as React.RefObject<HTMLParagraphElement>}>
        {t('profile.noElevation')}
      </p>
    );
  }
  const eles = track.Profile.map((p) => p[1]);
  const minE = Math.min(...eles);
  const maxE = Math.max(...eles);
  const span = Math.max(maxE - minE, 10);
  const x = (d: number) => PAD.left + (d / track.LengthM) * (W - PAD.left - PAD.right);
  const y = (e: number) => H - PAD.bottom - ((e - minE) / span) * (H - PAD.top - PAD.bottom);
  const line = track.Profile.map(([d, e], i) => `${i ? 'L' : 'M'}${x(d).toFixed(1)},${y(e).toFixed(1)}`).join(
    '',
  );
  const area = `${line}L${x(track.LengthM).toFixed(1)},${H - PAD.bottom}L${x(0).toFixed(1)},${H - PAD.bottom}Z`;
  const km = track.LengthM / 1000;
  // About one label per 60 px.
  const maxTicks = Math.max(2, Math.floor(W / 60));
  const tickEvery = [1, 2, 5, 10, 20, 25, 50, 100].find((s) => km / s <= maxTicks) ?? 200;
  const ticks: number[] = [];
  for (let k = 0; k <= km; k += tickEvery) ticks.push(k);
  const placed = rows.filter((r) => r.DistanceKm !== null && r.Latitude !== null);

  return (
    <figure className="live-profile" ref={ref as React.RefObject<HTMLElement>}>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={t('profile.label', {
          min: Math.round(minE),
          max: Math.round(maxE),
          count: placed.length,
        })}
        width={W}
        height={H}
      >
        <path d={area} className="live-profile__area" />
        <path d={line} className="live-profile__line" />
        {ticks.map((k) => (
          <g key={k}>
            <line
              x1={x(k * 1000)}
              x2={x(k * 1000)}
              y1={H - PAD.bottom}
              y2={H - PAD.bottom + 4}
              className="live-profile__tick"
            />
            <text x={x(k * 1000)} y={H - 6} textAnchor="middle" className="live-profile__label">
              {k}
            </text>
          </g>
        ))}
        <text x={4} y={y(maxE) + 4} className="live-profile__label">
          {Math.round(maxE)} m
        </text>
        <text x={4} y={y(minE)} className="live-profile__label">
          {Math.round(minE)} m
        </text>
        {placed.map((r) => {
          const d = Math.min(r.DistanceKm! * 1000, track.LengthM);
          return (
            <circle
              key={r.RunnerId}
              cx={x(d)}
              cy={y(eleAt(track.Profile, d))}
              r={r.RunnerId === followId ? 7 : 5}
              className={`live-profile__runner live-profile__runner--${shownStatus(r.Status, phase)}${r.RunnerId === followId ? ' is-followed' : ''}`}
              data-runner-id={r.RunnerId}
              onClick={() => onSelect(r.RunnerId)}
            >
              <title>
                {runnerLabel(r)} {r.FirstName} {r.LastName}, km{' '}
                {formatDistanceNumber(r.DistanceKm!, 1, { units: 'km' })}
              </title>
            </circle>
          );
        })}
      </svg>
      <figcaption className="live-muted">{t('profile.caption')}</figcaption>
    </figure>
  );
}
