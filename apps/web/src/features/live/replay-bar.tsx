import { useState } from 'react';
import { formatDateTime } from './live-format';
import { urlAtMoment, type ReplayControl, type ReplaySpeed } from './use-replay';
import { useI18n } from '../../i18n';

const SPEEDS: ReplaySpeed[] = [60, 600];

/**
 * The replay controls under the race's heading: a time slider between the start and now (or the end), play at ×60 or
 * ×600, back to live (or to the final results), and a link to the race at the moment shown.
 */
export function ReplayBar(props: { control: ReplayControl; from: number; to: number; finished: boolean }) {
  const { control, from, to, finished } = props;
  const [copied, setCopied] = useState(false);
  const { t } = useI18n();
  const value = Math.min(to, Math.max(from, control.at ?? to));
  const shown = new Date(value).toISOString();
  const liveLabel = finished ? t('live.finalResults') : t('live.title');
  const copy = async () => {
    const link = urlAtMoment(window.location.href, control.at === null ? (finished ? null : value) : value);
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      window.prompt(t('common.copyThisLink'), link);
    }
  };
  return (
    <div
      className="replay-bar"
      role="group"
      aria-label={t('replay.label')}
      data-replaying={control.at !== null}
    >
      <div className="replay-bar__row">
        <span className="replay-bar__time" data-testid="replay-time">
          {control.at === null ? liveLabel : formatDateTime(shown)}
          {control.loading ? <span className="replay-bar__loading">{t('replay.loading')}</span> : null}
        </span>
        <span className="replay-bar__buttons">
          {SPEEDS.map((s) =>
            control.speed === s ? (
              <button key={s} type="button" className="btn btn-secondary" onClick={control.pause}>
                {t('replay.pause')}
              </button>
            ) : (
              <button
                key={s}
                type="button"
                className="btn btn-secondary"
                onClick={() => control.play(s)}
                title={t('replay.playTitle', { speed: s })}
              >
                ▶ ×{s}
              </button>
            ),
          )}
          {control.at !== null ? (
            <button type="button" className="btn" onClick={control.goLive}>
              {liveLabel}
            </button>
          ) : null}
          <button type="button" className="btn btn-secondary" onClick={() => void copy()}>
            {copied ? t('common.copied') : t('common.copyLink')}
          </button>
        </span>
      </div>
      <input
        className="replay-bar__slider"
        type="range"
        min={from}
        max={to}
        step={60_000}
        value={value}
        aria-label={t('replay.time')}
        aria-valuetext={formatDateTime(shown)}
        onChange={(e) => control.seek(Number(e.target.value))}
      />
      {control.error ? (
        <p className="live-muted" role="alert">
          {control.error}
        </p>
      ) : null}
    </div>
  );
}
