import { useMemo, useState } from 'react';
import { AGE_GROUPS, filterLeaderboard, type LeaderboardRow } from '@racebeacon/domain';
import {
  formatAgo,
  formatClock,
  formatDuration,
  formatKmValue,
  formatNextWaypoint,
  formatPace,
  runnerLabel,
  STATUS_LABEL,
} from './live-format';
import { liveElapsedSeconds, type RaceClockView } from './live-clock';
import { useNow } from './use-live-race';

const TICK_MS = 30_000;

/**
 * The live leaderboard: search (bib or name), gender and age-group filters, one row per runner. Its own clock ticks
 * every 30 s for "last seen" and the elapsed time of runners out on the course, so the rest of the live panel (the
 * map) does not re-render with it and no request is made.
 */
export function LeaderboardTable(props: {
  rows: LeaderboardRow[];
  clock: RaceClockView;
  followId: number | null;
  onSelect(runnerId: number): void;
}) {
  const { rows, clock, followId, onSelect } = props;
  const now = useNow(TICK_MS);
  const [search, setSearch] = useState('');
  const [gender, setGender] = useState<'' | 'M' | 'F'>('');
  const [ageGroup, setAgeGroup] = useState('');
  const shown = useMemo(
    () =>
      filterLeaderboard(rows, {
        search: search.trim() || undefined,
        gender: gender || undefined,
        ageGroup: ageGroup || undefined,
      }),
    [rows, search, gender, ageGroup],
  );
  const leaderKm = rows.find((r) => r.Rank === 1)?.DistanceKm ?? null;
  // With a gender or age-group filter, a column with the place within that category ("3 in F 40-49").
  const category = [gender, ageGroup].filter(Boolean).join(' ');

  return (
    <section className="live-board" aria-labelledby="live-board-title">
      <h3 id="live-board-title">Leaderboard</h3>
      <div className="live-board__filters">
        <label>
          Search
          <input
            type="search"
            value={search}
            placeholder="Bib or name"
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <label>
          Gender
          <select value={gender} onChange={(e) => setGender(e.target.value as '' | 'M' | 'F')}>
            <option value="">All</option>
            <option value="M">M</option>
            <option value="F">F</option>
          </select>
        </label>
        <label>
          Age group
          <select value={ageGroup} onChange={(e) => setAgeGroup(e.target.value)}>
            <option value="">All</option>
            {AGE_GROUPS.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="live-board__scroll">
        <table className="live-board__table">
          <caption className="visually-hidden">
            Live leaderboard, {shown.length} of {rows.length} runners
          </caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              {category ? (
                <th scope="col" className="live-board__cat" title={`Rank among ${category}`}>
                  In {category}
                </th>
              ) : null}
              <th scope="col">Runner</th>
              <th scope="col">Status</th>
              <th scope="col">Distance</th>
              <th scope="col">Progress</th>
              <th scope="col">Pace</th>
              <th scope="col">Elapsed</th>
              <th scope="col">ETA</th>
              <th scope="col">Gap</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => {
              const nextAid = r.Status === 'finished' ? null : formatNextWaypoint(r);
              const gapKm =
                leaderKm !== null && r.DistanceKm !== null && r.Rank !== 1 ? leaderKm - r.DistanceKm : null;
              return (
                <tr
                  key={r.RunnerId}
                  data-runner-id={r.RunnerId}
                  className={`live-row live-row--${r.Status}${r.RunnerId === followId ? ' is-followed' : ''}`}
                  onClick={() => onSelect(r.RunnerId)}
                >
                  <td className="live-row__rank">{r.Rank ?? '–'}</td>
                  {category ? (
                    <td className="live-row__cat-rank">
                      {r.CategoryRank != null ? (
                        <span title={`${r.CategoryRank} in ${category}`}>{r.CategoryRank}</span>
                      ) : (
                        '–'
                      )}
                    </td>
                  ) : null}
                  <td>
                    <button
                      type="button"
                      className="live-row__runner"
                      aria-pressed={r.RunnerId === followId}
                      title={`Follow ${runnerLabel(r)} on the map`}
                      onClick={(e) => {
                        e.stopPropagation();
                        onSelect(r.RunnerId);
                      }}
                    >
                      <span className="live-row__bib">{runnerLabel(r)}</span> {r.FirstName} {r.LastName}
                    </button>
                    <span className="live-muted">
                      {' '}
                      {r.Gender}
                      {r.Age !== null ? ` ${r.Age}` : ''}
                    </span>
                  </td>
                  <td>
                    <span className={`live-status live-status--${r.Status}`}>
                      {STATUS_LABEL[r.Status] ?? r.Status}
                    </span>
                  </td>
                  <td className="live-row__num">{formatKmValue(r.DistanceKm)}</td>
                  <td>
                    <span className="live-progress" aria-hidden="true">
                      <span style={{ width: `${Math.min(100, Math.max(0, r.Percent ?? 0))}%` }} />
                    </span>{' '}
                    <span className="live-row__num">
                      {r.Percent === null ? '–' : `${r.Percent.toFixed(1)}%`}
                    </span>
                  </td>
                  <td className="live-row__num">{formatPace(r.PaceSecondsPerKm)}</td>
                  <td className="live-row__num live-row__elapsed">
                    {formatDuration(liveElapsedSeconds(r, clock, now))}
                  </td>
                  <td className="live-row__num">
                    {r.Status === 'finished'
                      ? `Finished ${formatClock(r.FinishTime)}`
                      : formatClock(r.EtaFinish)}
                    {nextAid ? (
                      <span className="live-row__next" title="Next aid station and expected arrival">
                        {nextAid}
                      </span>
                    ) : null}
                  </td>
                  <td className="live-row__num">{gapKm === null ? '–' : `+${gapKm.toFixed(2)} km`}</td>
                  <td>
                    {formatAgo(r.LastPingTime, now)}
                    {r.BatteryState ? <span className="live-muted"> · battery {r.BatteryState}</span> : null}
                  </td>
                </tr>
              );
            })}
            {shown.length === 0 ? (
              <tr>
                <td colSpan={category ? 11 : 10} className="live-muted">
                  {rows.length ? 'No runner matches these filters.' : 'No runners yet.'}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </section>
  );
}
