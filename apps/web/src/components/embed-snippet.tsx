import { useId, useState } from 'react';
import { paths } from '../lib/paths';
import { inLanguage, t, useI18n } from '../i18n';
import { RichText } from '../i18n/rich-text';

const VIEWS = [
  { value: 'map', label: 'share.liveMap' },
  { value: 'leaderboard', label: 'board.title' },
] as const;

/**
 * The <iframe> code a race's own website pastes to show the live map or leaderboard; its title (what a screen
 * reader announces for the frame) in the language the code is copied in.
 */
export function embedSnippet(origin: string, raceId: number, view: string, raceName: string): string {
  const title = t(view === 'leaderboard' ? 'share.frameTitleLeaderboard' : 'share.frameTitleMap', {
    race: raceName,
  })
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;');
  return (
    `<iframe src="${origin}${paths.embedRace(raceId, view)}" title="${title}" ` +
    `width="100%" height="600" style="border:0;max-width:1200px" loading="lazy"></iframe>`
  );
}

/**
 * "Put this race on your website": the embed snippet to copy (map or leaderboard view), and the text-only view for
 * spectators with a weak signal. Shown on the race page of a public race, to everyone (the director included).
 */
export function EmbedSnippet({ raceId, raceName }: { raceId: number; raceName: string }) {
  const id = useId();
  const [view, setView] = useState<string>('map');
  const [copied, setCopied] = useState(false);
  const { t, language } = useI18n();
  const code = embedSnippet(window.location.origin, raceId, view, raceName);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setCopied(true);
    } catch {
      // No clipboard (insecure context, denied): the code stays selectable in the box.
      setCopied(false);
    }
  };
  return (
    <details className="card embed-snippet">
      <summary>{t('share.summary')}</summary>
      <p className="muted">{t('share.lead')}</p>
      <div className="embed-snippet__row">
        <label htmlFor={`${id}-view`}>{t('share.show')}</label>
        <select
          id={`${id}-view`}
          value={view}
          onChange={(e) => {
            setView(e.target.value);
            setCopied(false);
          }}
        >
          {VIEWS.map((v) => (
            <option key={v.value} value={v.value}>
              {t(v.label)}
            </option>
          ))}
        </select>
      </div>
      <label htmlFor={`${id}-code`} className="embed-snippet__label">
        {t('share.code')}
      </label>
      <textarea
        id={`${id}-code`}
        className="embed-snippet__code"
        readOnly
        rows={4}
        value={code}
        data-testid="embed-snippet"
        onFocus={(e) => e.currentTarget.select()}
      />
      <div className="embed-snippet__row">
        <button type="button" className="btn btn-secondary" onClick={() => void copy()}>
          {t('share.copy')}
        </button>
        <span role="status" className="muted">
          {copied ? t('share.copied') : ''}
        </span>
      </div>
      <p className="muted">
        <RichText text={t('share.runner')} tags={[<code key="code" />]} />{' '}
        <a href={paths.embedRace(raceId, view)} target="_blank" rel="noopener">
          {t('share.preview')}
        </a>{' '}
        ·{' '}
        <a href={inLanguage(paths.raceText(raceId))} hrefLang={language}>
          {t('share.textView')}
        </a>{' '}
        {t('share.weakSignal')}
      </p>
    </details>
  );
}
