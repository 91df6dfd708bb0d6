import { useMemo, useState } from 'react';
import { AGE_GROUPS, filterLeaderboard } from '@racebeacon/domain/course';
import type { Gender } from '@racebeacon/domain/entities';
import type { LeaderboardRow } from '@racebeacon/domain/live';
import {
  formatAgo,
  formatBattery,
  formatClock,
  formatEstimate,
  formatEtaRange,
  formatDuration,
  formatKmValue,
  formatNextWaypoint,
  formatPace,
  formatPercent,
  formatDistance,
  runnerLabel,
  STATUS_LABEL,
} from './live-format';
import { useI18n } from '../../i18n';
import { Link } from 'react-router';
import { paths } from '../../lib/paths';
import { liveElapsedSeconds, shownStatus, type RaceClockView, type RacePhase } from './live-clock';
import { RunnerCheckpoints } from './runner-splits';
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
  phase: RacePhase;
  followId: number | null;
  /** Runners the viewer follows (pinned at the top by the caller): marked. */
  pinnedIds?: ReadonlySet<number>;
  onSelect(runnerId: number): void;
  /** With it, each runner's name has a link to their runner page. */
  runnerPageRaceId?: number;
  /** With it, each row shows its last checkpoint passed, a cutoff risk and its splits one click away. */
  raceId?: number;
  /** The replay's moment (epoch ms), null or absent live: "last seen" and elapsed are read at it, not now. */
  atMs?: number | null;
}) {
  const { rows, clock, phase, followId, onSelect, raceId } = props;
  const over = phase === 'finished';
  const raceIdForLink = props.runnerPageRaceId;
  const { t } = useI18n();
  const tick = useNow(TICK_MS);
  const now = props.atMs ?? tick;
  const [search, setSearch] = useState('');
  const [gender, setGender] = useState<'' | Gender>('');
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
      <h3 id="live-board-title">{t('board.title')}</h3>
      <div className="live-board__filters">
        <label>
          {t('board.search')}
          <input
            type="search"
            value={search}
            placeholder={t('board.searchPlaceholder')}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <label>
          {t('board.gender')}
          <select value={gender} onChange={(e) => setGender(e.target.value as '' | Gender)}>
            <option value="">{t('board.all')}</option>
            <option value="M">M</option>
            <option value="F">F</option>
          </select>
        </label>
        <label>
          {t('board.ageGroup')}
          <select value={ageGroup} onChange={(e) => setAgeGroup(e.target.value)}>
            <option value="">{t('board.all')}</option>
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
            {t('board.caption', { shown: shown.length, total: rows.length })}
          </caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              {category ? (
                <th scope="col" className="live-board__cat" title={t('board.rankAmong', { category })}>
                  {t('board.inCategory', { category })}
                </th>
              ) : null}
              <th scope="col">{t('board.runner')}</th>
              <th scope="col" className="live-col-desk">
                {t('board.status')}
              </th>
              <th scope="col" className="live-col-desk">
                {t('board.distance')}
              </th>
              <th scope="col" className="live-col-wide">
                {t('board.progress')}
              </th>
              <th scope="col" className="live-col-wide">
                {t('board.pace')}
              </th>
              <th scope="col" className="live-col-wide">
                {t('board.elapsed')}
              </th>
              <th scope="col" className="live-col-wide">
                {t('board.eta')}
              </th>
              <th scope="col" className="live-col-wide">
                {t('board.gap')}
              </th>
              <th scope="col" className="live-col-desk">
                {over ? t('board.lastFix') : t('board.lastSeen')}
              </th>
              <th scope="col" className="live-col-phone">
                {t('board.status')}
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => {
              const status = shownStatus(r.Status, phase);
              const nextAid = r.Status === 'finished' || over ? null : formatNextWaypoint(r);
              const gapKm =
                leaderKm !== null && r.DistanceKm !== null && r.Rank !== null && r.Rank !== 1
                  ? leaderKm - r.DistanceKm
                  : null;
              const percent = r.Percent === null ? '–' : formatPercent(r.Percent);
              const pace = formatPace(r.PaceSecondsPerKm);
              const elapsed = formatDuration(liveElapsedSeconds(r, clock, now));
              const etaAt =
                r.Status === 'finished'
                  ? t('board.finishedAt', { time: formatClock(r.FinishTime) })
                  : over
                    ? '–'
                    : formatClock(r.EtaFinish);
              // The ETA's range on its own line on a wide screen; "14:20 (14:05–14:40)" in the phone's line.
              const etaRange =
                r.Status === 'finished' || over || !r.EtaFinish || !r.EtaFinishEarliest || !r.EtaFinishLatest
                  ? null
                  : `${formatClock(r.EtaFinishEarliest)}–${formatClock(r.EtaFinishLatest)}`;
              const eta =
                r.Status === 'finished' || over
                  ? etaAt
                  : formatEtaRange(r.EtaFinish, r.EtaFinishEarliest, r.EtaFinishLatest);
              const estimate = over ? null : formatEstimate(r);
              // After the end nobody is overdue: the time of the last fix, not how long ago it was.
              const seen = over ? formatClock(r.LastPingTime) : formatAgo(r.LastPingTime, now);
              const battery = formatBattery(r.BatteryState);
              const gap = gapKm === null ? '–' : `+${formatDistance(gapKm, 2)}`;
              // On a phone the secondary columns are hidden and the same figures read as a line under the name.
              const more = [
                percent,
                pace,
                elapsed,
                r.Status === 'finished' || eta === '–' ? eta : t('board.etaValue', { eta }),
                gapKm === null ? null : t('board.gapValue', { gap }),
              ].filter((x) => x && x !== '–');
              return (
                <tr
                  key={r.RunnerId}
                  data-runner-id={r.RunnerId}
                  data-status={status}
                  className={`live-row live-row--${status}${r.RunnerId === followId ? ' is-followed' : ''}${props.pinnedIds?.has(r.RunnerId) ? ' is-pinned' : ''}`}
                  onClick={() => onSelect(r.RunnerId)}
                >
                  <td className="live-row__rank">{r.Rank ?? '–'}</td>
                  {category ? (
                    <td className="live-row__cat-rank">
                      {r.CategoryRank != null ? (
                        <span title={t('board.placeInCategory', { rank: r.CategoryRank, category })}>
                          {r.CategoryRank}
                        </span>
                      ) : (
                        '–'
                      )}
                    </td>
                  ) : null}
                  <td className="live-row__who">
                    <button
                      type="button"
                      className="live-row__runner"
                      aria-pressed={r.RunnerId === followId}
                      title={t('board.followOnMap', { runner: runnerLabel(r) })}
                      onClick={(e) => {
                        e.stopPropagation();
                        onSelect(r.RunnerId);
                      }}
                    >
                      <span className="live-row__bib">{runnerLabel(r)}</span> {r.FirstName} {r.LastName}
                    </button>
                    {raceIdForLink !== undefined && r.BibNumber ? (
                      <Link
                        className="live-row__page"
                        to={paths.raceRunner(raceIdForLink, r.BibNumber)}
                        aria-label={t('board.runnerPageOf', {
                          runner: `${runnerLabel(r)} ${r.FirstName} ${r.LastName}`,
                        })}
                        title={t('board.runnerPageTitle')}
                        onClick={(e) => e.stopPropagation()}
                      >
                        {t('board.page')}
                      </Link>
                    ) : null}
                    <span className="live-muted">
                      {' '}
                      {r.Gender}
                      {r.Age !== null ? ` ${r.Age}` : ''}
                    </span>
                    {more.length ? <span className="live-row__more">{more.join(' · ')}</span> : null}
                    {nextAid ? <span className="live-row__more">{nextAid}</span> : null}
                    {raceId ? <RunnerCheckpoints raceId={raceId} row={r} /> : null}
                    {estimate ? (
                      <span
                        className="live-row__estimate"
                        data-testid="live-estimate"
                        title={t('board.estimateTitle', { time: formatClock(r.LastPingTime) })}
                      >
                        {estimate}
                      </span>
                    ) : null}
                  </td>
                  <td className="live-col-desk">
                    <span className={`live-status live-status--${status}`}>
                      {STATUS_LABEL[status] ?? status}
                    </span>
                  </td>
                  <td className="live-row__num live-col-desk">{formatKmValue(r.DistanceKm)}</td>
                  <td className="live-col-wide">
                    <span className="live-progress" aria-hidden="true">
                      <span style={{ width: `${Math.min(100, Math.max(0, r.Percent ?? 0))}%` }} />
                    </span>{' '}
                    <span className="live-row__num">{percent}</span>
                  </td>
                  <td className="live-row__num live-col-wide">{pace}</td>
                  <td className="live-row__num live-row__elapsed live-col-wide">{elapsed}</td>
                  <td className="live-row__num live-col-wide">
                    {etaAt}
                    {etaRange ? (
                      <span className="live-row__range" title={t('board.expectedBetween')}>
                        {etaRange}
                      </span>
                    ) : null}
                    {nextAid ? (
                      <span className="live-row__next" title={t('board.nextAidTitle')}>
                        {nextAid}
                      </span>
                    ) : null}
                  </td>
                  <td className="live-row__num live-col-wide">{gap}</td>
                  <td className="live-row__seen live-col-desk">
                    {seen}
                    {battery ? (
                      <span
                        className={`live-muted live-row__battery${battery.low ? ' live-row__battery--low' : ''}`}
                      >
                        {t('live.battery', { battery: battery.text })}
                      </span>
                    ) : null}
                  </td>
                  {/* A phone's one column for the essentials: status badge, distance, last seen, stacked. */}
                  <td className="live-col-phone live-row__phone">
                    <span className={`live-badge live-status--${status}`}>
                      {STATUS_LABEL[status] ?? status}
                    </span>
                    <span className="live-row__num">{formatKmValue(r.DistanceKm)}</span>
                    {r.LastPingTime ? <span className="live-muted">{seen}</span> : null}
                  </td>
                </tr>
              );
            })}
            {shown.length === 0 ? (
              <tr>
                <td colSpan={category ? 12 : 11} className="live-muted">
                  {rows.length ? t('board.noMatch') : t('board.noRunners')}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </section>
  );
}
