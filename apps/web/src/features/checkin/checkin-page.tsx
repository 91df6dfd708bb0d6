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
import { t, useI18n } from '../../i18n';
import { distanceUnit, formatClockSeconds, formatDistanceNumber } from '../../i18n/format';
import { LanguageSwitch } from '../../i18n/switches';
import { RichText } from '../../i18n/rich-text';
import './checkin.css';

type Runner = PageData['Runners'][number];

const KIND_KEY = { in: 'checkin.in', out: 'checkin.out', dnf: 'checkin.dnf' } as const;
const kindLabel = (kind: CheckinKind) => t(KIND_KEY[kind]);

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
  return formatClockSeconds(iso);
}

/** Why an entry was refused, in the volunteer's language for the rules they can act on; else the server's words. */
function refusalText(entry: QueuedEntry): string | undefined {
  switch (entry.error) {
    case 'status_kept':
      return t('checkin.refusal.statusKept');
    case 'race_ended':
      return t('checkin.refusal.raceEnded');
    case 'checkin_time':
      return t('checkin.refusal.time');
    default:
      return entry.message;
  }
}

function EntryRow({ entry, runner }: { entry: QueuedEntry; runner: Runner | undefined }) {
  useI18n();
  const name = entry.answer
    ? `${entry.answer.FirstName} ${entry.answer.LastName}`
    : runner
      ? `${runner.FirstName} ${runner.LastName}`
      : '';
  return (
    <li className={`checkin-entry checkin-entry-${entry.state}`}>
      <span className="checkin-entry-bib">#{entry.BibNumber}</span>
      <span className="checkin-entry-main">
        <span className="checkin-entry-name">{name || t('checkin.unknownRunner')}</span>
        <span className="checkin-entry-meta">
          <RichText
            text={t('checkin.kindAt', { kind: kindLabel(entry.Kind), time: timeOf(entry.Time) })}
            tags={[<strong key="kind" />]}
          />
        </span>
        {entry.state === 'refused' && <span className="checkin-entry-error">{refusalText(entry)}</span>}
      </span>
      <span className={`checkin-state checkin-state-${entry.state}`}>
        {entry.state === 'waiting'
          ? t('checkin.waitingToSend')
          : entry.state === 'sent'
            ? t('checkin.sent')
            : t('checkin.notAccepted')}
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
  useI18n();
  useDocumentTitle(page ? `${t('checkin.title')} · ${page.CheckpointName}` : t('checkin.title'));

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
      const vars = { bib: entry.BibNumber, kind: kindLabel(kind) };
      setNotice(navigator.onLine ? t('checkin.saved', vars) : t('checkin.savedWaiting', vars));
    } catch {
      setBib((current) => current || bibNumber);
      setNotice(t('checkin.notSaved', { bib: bibNumber }));
    }
  };

  const recent = (
    <section className="checkin-card" aria-labelledby="checkin-recent">
      <h2 id="checkin-recent">{t('checkin.recent')}</h2>
      {entries.length === 0 ? (
        <p className="checkin-empty">{t('checkin.nothingYet')}</p>
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
          <h1>{t('checkin.invalidTitle')}</h1>
          <p>{t('checkin.invalidLead')}</p>
        </div>
        {entries.length > 0 && recent}
      </main>
    );

  return (
    <main className="checkin" id="main">
      <header className="checkin-head">
        <div>
          <h1>{page ? page.CheckpointName : loaded ? t('checkin.aidStation') : t('common.loading')}</h1>
          {page && (
            <p className="checkin-sub">
              {page.RaceName} · {distanceUnit()} {formatDistanceNumber(page.DistanceKm, 1)}
            </p>
          )}
        </div>
        <span className={`checkin-net ${online ? 'is-online' : 'is-offline'}`} role="status">
          {online ? t('checkin.online') : t('checkin.offline')}
          {waiting > 0 && t('checkin.waiting', { count: waiting })}
        </span>
      </header>

      {offlineReady !== null && (
        <p className={`checkin-offline-ready ${offlineReady ? 'is-ready' : 'is-not-ready'}`}>
          {offlineReady ? t('checkin.readyOffline') : t('checkin.notReadyOffline')}
        </p>
      )}

      {!persistent && (
        <p className="checkin-warning" role="alert">
          {t('checkin.notPersistent')}
        </p>
      )}

      <form
        className="checkin-card checkin-form"
        onSubmit={(e) => {
          e.preventDefault();
          void record('in');
        }}
      >
        <label htmlFor="checkin-bib">{t('checkin.bibNumber')}</label>
        <input
          id="checkin-bib"
          ref={input}
          className="checkin-bib"
          inputMode="numeric"
          autoComplete="off"
          enterKeyHint="done"
          value={bib}
          onChange={(e) => setBib(e.target.value)}
          placeholder={t('checkin.bibPlaceholder')}
        />
        <p className="checkin-runner" aria-live="polite">
          {runner
            ? `${runner.FirstName} ${runner.LastName}${runner.Status ? ` (${runner.Status})` : ''}`
            : typed && page && !suggestions.length
              ? t('checkin.noSuchBib')
              : ' '}
        </p>
        {suggestions.length > 0 && (
          <ul className="checkin-picks" aria-label={t('checkin.matching')}>
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
            {t('checkin.in')}
          </button>
          <button
            type="button"
            className="checkin-btn checkin-btn-out"
            disabled={!typed || !queue}
            onClick={() => void record('out')}
          >
            {t('checkin.out')}
          </button>
          <button
            type="button"
            className="checkin-btn checkin-btn-dnf"
            disabled={!typed || !queue}
            onClick={() => void record('dnf')}
          >
            {t('checkin.dnf')}
          </button>
        </div>
        <p className="checkin-notice" aria-live="polite">
          {notice}
        </p>
      </form>

      {recent}
      <footer className="checkin-lang">
        <LanguageSwitch />
      </footer>
    </main>
  );
}
