import { useEffect, useMemo, useRef, useState } from 'react';
import type { FlowAnswer, FlowRunner } from '@racebeacon/domain/course';
import { formatClock } from './live-format';
import { t, useI18n } from '../../i18n';
import { formatDistance } from '../../i18n/format';
import { storyApi } from './story-api';

/**
 * The race-flow chart: every runner's distance along the course against time, one line each (broken where data is
 * missing), checkpoints as horizontal lines with their cutoffs, followed runners highlighted, the replay moment as a
 * vertical line. Plain SVG sized to its container; hover or tap near a line names the runner.
 */

const REFRESH_MS = 150_000;
const PAD = { left: 40, right: 12, top: 12, bottom: 28 };
/** A pointer within this many pixels of a line's point picks that runner. */
const PICK_PX = 18;

interface Picked {
  runner: FlowRunner;
  t: number;
  km: number;
  x: number;
  y: number;
}

export function FlowChart(props: {
  raceId: number;
  live: boolean;
  followed: ReadonlySet<number>;
  atMs: number | null;
  onPick?(runnerId: number): void;
}) {
  const { raceId, live, followed, atMs } = props;
  const [flow, setFlow] = useState<FlowAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<Picked | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(640);
  useI18n();

  useEffect(() => {
    const ctrl = new AbortController();
    const load = () =>
      storyApi.flow(raceId, ctrl.signal).then(setFlow, (err: unknown) => {
        if (!ctrl.signal.aborted) setError(err instanceof Error ? err.message : t('flow.loadFailed'));
      });
    void load();
    const timer = live ? setInterval(() => void load(), REFRESH_MS) : undefined;
    return () => {
      ctrl.abort();
      clearInterval(timer);
    };
  }, [raceId, live]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(280, Math.round(el.clientWidth))));
    ro.observe(el);
    setWidth(Math.max(280, Math.round(el.clientWidth)));
    return () => ro.disconnect();
  }, [flow]);

  const height = width < 500 ? 260 : 340;
  const scale = useMemo(() => {
    if (!flow || flow.From === null) return null;
    const t0 = Date.parse(flow.From);
    const t1 = Math.max(t0 + 60_000, Date.parse(flow.To));
    const maxKm =
      flow.LengthKm ?? Math.max(1, ...flow.Runners.flatMap((r) => r.Lines.flat().map((p) => p[1])));
    const w = width - PAD.left - PAD.right;
    const h = height - PAD.top - PAD.bottom;
    return {
      t0,
      t1,
      maxKm,
      x: (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * w,
      y: (km: number) => PAD.top + h - (km / maxKm) * h,
    };
  }, [flow, width, height]);

  if (error)
    return (
      <p className="live-muted">
        {t('flow.title')}: {error}
      </p>
    );
  if (!flow || !scale) return null;
  const { x, y } = scale;
  const path = (line: [number, number][]) =>
    line.map((p, k) => `${k === 0 ? 'M' : 'L'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
  // Followed runners last, so they are drawn on top.
  const ordered = [...flow.Runners].sort(
    (a, b) => Number(followed.has(a.RunnerId)) - Number(followed.has(b.RunnerId)),
  );

  const pick = (clientX: number, clientY: number, svg: SVGSVGElement) => {
    // The pointer in the chart's own units, however the SVG is scaled on screen.
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const pt = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    const px = pt.x;
    const py = pt.y;
    let best: Picked | null = null;
    let bestD = PICK_PX;
    for (const runner of flow.Runners) {
      for (const line of runner.Lines) {
        for (let k = 0; k < line.length; k++) {
          const [t, km] = line[k];
          // The nearest point of the segment to the pointer (lines are thinned: points can be far apart).
          const next = line[k + 1];
          const ax = x(t);
          const ay = y(km);
          let qx = ax;
          let qy = ay;
          let qt = t;
          let qkm = km;
          if (next) {
            const bx = x(next[0]);
            const by = y(next[1]);
            const dx = bx - ax;
            const dy = by - ay;
            const len2 = dx * dx + dy * dy;
            const u = len2 > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
            qx = ax + u * dx;
            qy = ay + u * dy;
            qt = t + u * (next[0] - t);
            qkm = km + u * (next[1] - km);
          }
          const d = Math.hypot(qx - px, qy - py);
          if (d < bestD) {
            bestD = d;
            best = { runner, t: qt, km: qkm, x: qx, y: qy };
          }
        }
      }
    }
    setPicked(best);
  };

  const hours = (scale.t1 - scale.t0) / 3600_000;
  const stepH = hours <= 6 ? 1 : hours <= 24 ? 3 : hours <= 48 ? 6 : 12;
  const ticks: number[] = [];
  for (
    let t = Math.ceil(scale.t0 / (stepH * 3600_000)) * stepH * 3600_000;
    t <= scale.t1;
    t += stepH * 3600_000
  )
    ticks.push(t);
  const kmStep = scale.maxKm <= 20 ? 5 : scale.maxKm <= 60 ? 10 : scale.maxKm <= 200 ? 25 : 50;
  const kmTicks: number[] = [];
  for (let k = 0; k <= scale.maxKm; k += kmStep) kmTicks.push(k);

  return (
    <section className="flow-chart" aria-labelledby="flow-title" ref={box}>
      <h3 id="flow-title">{t('flow.title')}</h3>
      <p className="live-muted">{t('flow.lead')}</p>
      <svg
        data-testid="flow-chart"
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        height={height}
        role="img"
        aria-label={t('flow.label', { count: flow.Runners.length })}
        onPointerMove={(e) => pick(e.clientX, e.clientY, e.currentTarget)}
        onPointerDown={(e) => pick(e.clientX, e.clientY, e.currentTarget)}
        onPointerLeave={(e) => e.pointerType === 'mouse' && setPicked(null)}
        onClick={() => picked && props.onPick?.(picked.runner.RunnerId)}
      >
        {kmTicks.map((k) => (
          <g key={`km${k}`} className="flow-chart__grid">
            <line x1={PAD.left} x2={width - PAD.right} y1={y(k)} y2={y(k)} />
            <text x={PAD.left - 4} y={y(k) + 4} textAnchor="end">
              {k}
            </text>
          </g>
        ))}
        {ticks.map((t) => (
          <text key={`t${t}`} className="flow-chart__tick" x={x(t)} y={height - 8} textAnchor="middle">
            {formatClock(new Date(t).toISOString())}
          </text>
        ))}
        {flow.Checkpoints.map((c) => (
          <g key={`cp${c.Name}${c.DistanceKm}`} className="flow-chart__checkpoint" data-checkpoint={c.Name}>
            <line x1={PAD.left} x2={width - PAD.right} y1={y(c.DistanceKm)} y2={y(c.DistanceKm)} />
            <text x={width - PAD.right - 2} y={y(c.DistanceKm) - 3} textAnchor="end">
              {c.Name}
            </text>
            {c.Cutoff && Date.parse(c.Cutoff) >= scale.t0 && Date.parse(c.Cutoff) <= scale.t1 ? (
              <g className="flow-chart__cutoff">
                <title>{t('flow.cutoffAt', { name: c.Name, time: formatClock(c.Cutoff) })}</title>
                <line
                  x1={x(Date.parse(c.Cutoff))}
                  x2={x(Date.parse(c.Cutoff))}
                  y1={y(c.DistanceKm) - 8}
                  y2={y(c.DistanceKm) + 8}
                />
                <text x={x(Date.parse(c.Cutoff)) + 3} y={y(c.DistanceKm) + 14}>
                  {t('flow.cutoff')}
                </text>
              </g>
            ) : null}
          </g>
        ))}
        {ordered.map((r) => (
          <g
            key={r.RunnerId}
            className={`flow-runner${followed.has(r.RunnerId) ? ' is-followed' : ''}${picked?.runner.RunnerId === r.RunnerId ? ' is-picked' : ''}`}
            data-runner-id={r.RunnerId}
          >
            {r.Lines.map((line, k) =>
              line.length === 1 ? (
                <circle key={k} cx={x(line[0][0])} cy={y(line[0][1])} r={1.5} />
              ) : (
                <path key={k} d={path(line)} />
              ),
            )}
          </g>
        ))}
        {atMs !== null && atMs >= scale.t0 && atMs <= scale.t1 ? (
          <line className="flow-chart__now" x1={x(atMs)} x2={x(atMs)} y1={PAD.top} y2={height - PAD.bottom} />
        ) : null}
        {picked ? <circle className="flow-chart__pick" cx={picked.x} cy={picked.y} r={4} /> : null}
      </svg>
      <p className="flow-chart__picked" role="status" aria-live="polite">
        {picked
          ? t('flow.picked', {
              runner: `${picked.runner.BibNumber ? `#${picked.runner.BibNumber} ` : ''}${picked.runner.FirstName} ${picked.runner.LastName}`,
              // The chart's distance axis is in km whatever the units switch says.
              distance: formatDistance(picked.km, 1, { units: 'km' }),
              time: formatClock(new Date(picked.t).toISOString()),
            })
          : '\u00a0'}
      </p>
    </section>
  );
}
