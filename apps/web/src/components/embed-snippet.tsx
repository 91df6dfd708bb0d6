import { useId, useState } from 'react';
import { paths } from '../lib/paths';

const VIEWS = [
  { value: 'map', label: 'Live map' },
  { value: 'leaderboard', label: 'Leaderboard' },
] as const;

/** The <iframe> code a race's own website pastes to show the live map or leaderboard. */
export function embedSnippet(origin: string, raceId: number, view: string, raceName: string): string {
  const title = `${raceName} – live ${view === 'leaderboard' ? 'leaderboard' : 'map'}`.replace(
    /"/g,
    '&quot;',
  );
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
      <summary>Share: put this race on your website</summary>
      <p className="muted">
        Paste this code into a page of your race’s website: it shows the live view, updated as runners move,
        with a link back to the full race page.
      </p>
      <div className="embed-snippet__row">
        <label htmlFor={`${id}-view`}>Show</label>
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
              {v.label}
            </option>
          ))}
        </select>
      </div>
      <label htmlFor={`${id}-code`} className="embed-snippet__label">
        Embed code
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
          Copy the code
        </button>
        <span role="status" className="muted">
          {copied ? 'Copied.' : ''}
        </span>
      </div>
      <p className="muted">
        A runner’s own page: add <code>?view=runner&amp;bib=</code> and the bib number.{' '}
        <a href={paths.embedRace(raceId, view)} target="_blank" rel="noopener">
          Preview
        </a>{' '}
        · <a href={paths.raceText(raceId)}>Text-only view</a> (for a weak signal)
      </p>
    </details>
  );
}
