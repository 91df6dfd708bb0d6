import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useParams } from 'react-router';
import type { CheckinKind, CheckinPage as PageData } from '@racebeacon/domain/checkin';
import type { ApiFailure } from '../../lib/api-client';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { useDocumentTitle } from '../../lib/use-document-title';
import { checkinApi } from './api';
import { loadSavedPage, openEntryStore, savePage } from './idb-store';
import { CheckinQueue, type QueuedEntry } from './queue';
import { registerCheckinWorker } from './service-worker';
import './checkin.css';

type Runner = PageData['Runners'][number];

const KIND_LABEL: Record<CheckinKind, string> = { in: 'In', out: 'Out', dnf: 'DNF' };

function useOnline(): boolean {
  return useSyncExternalStore(
    (fn) => {
      window.addEventListener('online', fn);
      window.addEventListener('offline', fn);
      return () => {
        window.removeEventListener('online', fn);
        window.removeEventListener('offline', fn);
      };
    },
    () => navigator.onLine,
  );
}

/** The outbox of this link: loaded from the phone's storage, sent on `online`, kept in React state. */
function useQueue(token: string) {
  const [queue, setQueue] = useState<CheckinQueue | null>(null);
  const [entries, setEntries] = useState<QueuedEntry[]>([]);
  const [persistent, setPersistent] = useState(true);
  useEffect(() => {
    let q: CheckinQueue | null = null;
    let cancelled = false;
    const onOnline = () => q?.online();
    void openEntryStore().then(({ store, persistent: kept }) => {
      if (cancelled) return;
      q = new CheckinQueue({ token, store, send: checkinApi.send });
      q.subscribe(() => setEntries(q!.list()));
      setPersistent(kept);
      setQueue(q);
      window.addEventListener('online', onOnline);
      void q.load();
    });
    return () => {
      cancelled = true;
      window.removeEventListener('online', onOnline);
      q?.dispose();
    };
  }, [token]);
  return { queue, entries, persistent };
}

/** The page data: from the server, else the copy saved on the phone at the last visit. */
function usePageData(token: string) {
  const [page, setPage] = useState<PageData | null>(null);
  const [revoked, setRevoked] = useState(false);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    let cancelled = false;
    const read = async (first: boolean) => {
      try {
        const fresh = await checkinApi.page(token);
        if (cancelled) return;
        setPage(fresh);
        void savePage(token, fresh);
      } catch (err) {
        if (cancelled) return;
        if ((err as ApiFailure).status === 401) setRevoked(true);
        else if (first) setPage(await loadSavedPage(token));
      } finally {
        if (!cancelled) setLoaded(true);
      }
    };
    // Read again when the network is back: runners added or marked DNF meanwhile.
    const onOnline = () => void read(false);
    window.addEventListener('online', onOnline);
    void read(true);
    return () => {
      cancelled = true;
      window.removeEventListener('online', onOnline);
    };
  }, [token]);
  return { page, revoked, loaded };
}

function timeOf(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

function EntryRow({ entry, runner }: { entry: QueuedEntry; runner: Runner | undefined }) {
  const name = entry.answer
    ? `${entry.answer.FirstName} ${entry.answer.LastName}`
    : runner
      ? `${runner.FirstName} ${runner.LastName}`
      : '';
  return (
    <li className={`checkin-entry checkin-entry-${entry.state}`}>
      <span className="checkin-entry-bib">#{entry.BibNumber}</span>
      <span className="checkin-entry-main">
        <span className="checkin-entry-name">{name || 'Unknown runner'}</span>
        <span className="checkin-entry-meta">
          <strong>{KIND_LABEL[entry.Kind]}</strong> at {timeOf(entry.Time)}
        </span>
        {entry.state === 'refused' && <span className="checkin-entry-error">{entry.message}</span>}
      </span>
      <span className={`checkin-state checkin-state-${entry.state}`}>
        {entry.state === 'waiting' ? 'waiting to send' : entry.state === 'sent' ? 'sent' : 'not accepted'}
      </span>
    </li>
  );
}

/**
 * /checkin/{token}: an aid-station volunteer's page on a phone, no sign-in. Type or pick a bib, tap In, Out or DNF
 * (DNF asks first). Entries are kept on the phone and sent when there is network, each exactly once.
 */
export function CheckinPage() {
  const { token = '' } = useParams();
  const { page, revoked, loaded } = usePageData(token);
  const { queue, entries, persistent } = useQueue(token);
  const online = useOnline();
  const [bib, setBib] = useState('');
  const [notice, setNotice] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useDocumentTitle(page ? `Check-in · ${page.CheckpointName}` : 'Check-in');

  /** Whether the page would open again after a reload with no network (the service worker kept it). */
  const [offlineReady, setOfflineReady] = useState<boolean | null>(null);
  useEffect(() => registerCheckinWorker(setOfflineReady), []);

  const byBib = useMemo(() => new Map((page?.Runners ?? []).map((r) => [r.BibNumber, r])), [page]);
  const typed = bib.trim();
  const runner = byBib.get(typed);
  const suggestions = useMemo(() => {
    if (!page || !typed || runner) return [];
    const q = typed.toLowerCase();
    return page.Runners.filter(
      (r) =>
        r.BibNumber.startsWith(typed) ||
        r.FirstName.toLowerCase().startsWith(q) ||
        r.LastName.toLowerCase().startsWith(q),
    ).slice(0, 6);
  }, [page, typed, runner]);
  const waiting = entries.filter((e) => e.state === 'waiting').length;

  const record = async (kind: CheckinKind) => {
    if (!queue || !typed) return;
    if (kind === 'dnf' && !confirmed(CONFIRM.checkinDnf(typed))) return;
    // The field is cleared at once: a volunteer typing the next bib while this one is saved keeps what they type.
    const bibNumber = typed;
    setBib('');
    input.current?.focus();
    try {
      const entry = await queue.add(bibNumber, kind);
      setNotice(
        `Bib ${entry.BibNumber}: ${KIND_LABEL[kind]} saved${navigator.onLine ? '' : ' (waiting to send)'}.`,
      );
    } catch {
      setBib((current) => current || bibNumber);
      setNotice(`Bib ${bibNumber}: not saved on this phone. Try again.`);
    }
  };

  const recent = (
    <section className="checkin-card" aria-labelledby="checkin-recent">
      <h2 id="checkin-recent">Recent entries</h2>
      {entries.length === 0 ? (
        <p className="checkin-empty">Nothing recorded on this phone yet.</p>
      ) : (
        <ul className="checkin-entries">
          {entries.slice(0, 50).map((e) => (
            <EntryRow key={e.EntryId} entry={e} runner={byBib.get(e.BibNumber)} />
          ))}
        </ul>
      )}
    </section>
  );

  if (revoked)
    return (
      <main className="checkin" id="main">
        <div className="checkin-card" role="alert">
          <h1>Check-in link not valid</h1>
          <p>This link was revoked or mistyped. Ask the race director for a new check-in link.</p>
        </div>
        {entries.length > 0 && recent}
      </main>
    );

  return (
    <main className="checkin" id="main">
      <header className="checkin-head">
        <div>
          <h1>{page ? page.CheckpointName : loaded ? 'Aid station' : 'Loading…'}</h1>
          {page && (
            <p className="checkin-sub">
              {page.RaceName} · km {page.DistanceKm.toFixed(1)}
            </p>
          )}
        </div>
        <span className={`checkin-net ${online ? 'is-online' : 'is-offline'}`} role="status">
          {online ? 'Online' : 'Offline'}
          {waiting > 0 && ` · ${waiting} waiting`}
        </span>
      </header>

      {offlineReady !== null && (
        <p className={`checkin-offline-ready ${offlineReady ? 'is-ready' : 'is-not-ready'}`}>
          {offlineReady
            ? 'Ready offline: this page opens again without network.'
            : 'Not ready offline yet: keep this page open until it has network again.'}
        </p>
      )}

      {!persistent && (
        <p className="checkin-warning" role="alert">
          This browser does not let the page keep entries: do not reload it until everything is sent.
        </p>
      )}

      <form
        className="checkin-card checkin-form"
        onSubmit={(e) => {
          e.preventDefault();
          void record('in');
        }}
      >
        <label htmlFor="checkin-bib">Bib number</label>
        <input
          id="checkin-bib"
          ref={input}
          className="checkin-bib"
          inputMode="numeric"
          autoComplete="off"
          enterKeyHint="done"
          value={bib}
          onChange={(e) => setBib(e.target.value)}
          placeholder="e.g. 42"
        />
        <p className="checkin-runner" aria-live="polite">
          {runner
            ? `${runner.FirstName} ${runner.LastName}${runner.Status ? ` (${runner.Status})` : ''}`
            : typed && page && !suggestions.length
              ? 'No runner with this bib in the list'
              : ' '}
        </p>
        {suggestions.length > 0 && (
          <ul className="checkin-picks" aria-label="Matching runners">
            {suggestions.map((r) => (
              <li key={r.RunnerId}>
                <button type="button" className="checkin-pick" onClick={() => setBib(r.BibNumber)}>
                  <strong>#{r.BibNumber}</strong> {r.FirstName} {r.LastName}
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="checkin-actions">
          <button type="submit" className="checkin-btn checkin-btn-in" disabled={!typed || !queue}>
            In
          </button>
          <button
            type="button"
            className="checkin-btn checkin-btn-out"
            disabled={!typed || !queue}
            onClick={() => void record('out')}
          >
            Out
          </button>
          <button
            type="button"
            className="checkin-btn checkin-btn-dnf"
            disabled={!typed || !queue}
            onClick={() => void record('dnf')}
          >
            DNF
          </button>
        </div>
        <p className="checkin-notice" aria-live="polite">
          {notice}
        </p>
      </form>

      {recent}
    </main>
  );
}
