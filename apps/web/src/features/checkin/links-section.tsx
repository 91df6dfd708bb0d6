import { useCallback, useEffect, useId, useState } from 'react';
import type { CheckinLink, CreatedCheckinLink } from '@racebeacon/domain/checkin';
import type { Checkpoint } from '@racebeacon/domain/entities';
import { FormError, failureMessage } from '../../components/form-error';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { checkinLinksApi } from './api';
import { t, useI18n } from '../../i18n';
import { distanceUnit, formatDistanceNumber, formatTimestamp } from '../../i18n/format';
import { RichText } from '../../i18n/rich-text';
import './checkin.css';

/**
 * The race director's (or an admin's) check-in links: one per aid station, made for a checkpoint of the course.
 * A new link's address is shown once (the server keeps only a hash of its token), to copy and send to the
 * volunteers; links can be revoked. Lists what each link has brought in.
 */
export function CheckinLinksSection({ raceId }: { raceId: number }) {
  const id = useId();
  useI18n();
  const [checkpoints, setCheckpoints] = useState<Checkpoint[] | null>(null);
  const [links, setLinks] = useState<CheckinLink[]>([]);
  const [checkpointId, setCheckpointId] = useState('');
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState<CreatedCheckinLink | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [cps, ls] = await Promise.all([
        checkinLinksApi.checkpoints(raceId),
        checkinLinksApi.list(raceId),
      ]);
      setCheckpoints(cps);
      setLinks(ls);
      setCheckpointId((current) => current || (cps[1] ?? cps[0])?.CheckpointId.toString() || '');
    } catch (err) {
      setError(failureMessage(err));
    }
  }, [raceId]);
  useEffect(() => void load(), [load]);

  const fullUrl = (path: string) => `${window.location.origin}${path}`;

  async function create() {
    setError(null);
    setCopied(false);
    try {
      setCreated(await checkinLinksApi.create(raceId, Number(checkpointId), label));
      setLabel('');
      await load();
    } catch (err) {
      setError(failureMessage(err));
    }
  }

  async function revoke(link: CheckinLink) {
    if (!confirmed(CONFIRM.revokeCheckinLink)) return;
    setError(null);
    try {
      await checkinLinksApi.revoke(raceId, link.LinkId);
      if (created?.LinkId === link.LinkId) setCreated(null);
      await load();
    } catch (err) {
      setError(failureMessage(err));
    }
  }

  async function copy(text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <section className="card checkin-links" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('checkinLinks.title')}</h2>
      <p className="muted">{t('checkinLinks.lead')}</p>
      {checkpoints && checkpoints.length === 0 ? (
        <p className="muted">{t('checkinLinks.noCourse')}</p>
      ) : (
        <form
          className="checkin-links-form"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            {t('splits.checkpoint')}
            <select value={checkpointId} onChange={(e) => setCheckpointId(e.target.value)} required>
              {(checkpoints ?? []).map((c) => (
                <option key={c.CheckpointId} value={c.CheckpointId}>
                  {c.Name} ({distanceUnit()} {formatDistanceNumber(c.DistanceKm, 1)})
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('checkinLinks.label')}
            <input
              value={label}
              maxLength={200}
              onChange={(e) => setLabel(e.target.value)}
              placeholder={t('checkinLinks.labelPlaceholder')}
            />
          </label>
          <button type="submit" className="btn btn-primary" disabled={!checkpointId}>
            {t('checkinLinks.create')}
          </button>
        </form>
      )}
      <FormError message={error} />
      {created && (
        <div className="checkin-links-created" role="status">
          <p>
            <RichText
              text={t('checkinLinks.created', { name: created.CheckpointName })}
              tags={[<strong key="name" />]}
            />
          </p>
          <div className="checkin-links-url">
            <input
              readOnly
              value={fullUrl(created.Url)}
              aria-label={t('checkinLinks.address')}
              onFocus={(e) => e.target.select()}
            />
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => void copy(fullUrl(created.Url))}
            >
              {copied ? t('common.copied') : t('checkinLinks.copy')}
            </button>
          </div>
        </div>
      )}
      {links.length > 0 && (
        <ul className="checkin-links-list" aria-label={t('checkinLinks.list')}>
          {links.map((l) => (
            <li key={l.LinkId} className={l.RevokedAt ? 'is-revoked' : undefined}>
              <span className="checkin-links-name">
                <strong>{l.CheckpointName}</strong>
                {l.Label ? ` · ${l.Label}` : ''}
              </span>
              <span className="muted">
                {t(l.Entries === 1 ? 'checkinLinks.entry' : 'checkinLinks.entries', { count: l.Entries })}
                {l.RevokedAt ? ` · ${t('checkinLinks.revoked', { time: formatTimestamp(l.RevokedAt) })}` : ''}
              </span>
              {!l.RevokedAt && (
                <button type="button" className="btn btn-ghost btn-small" onClick={() => void revoke(l)}>
                  {t('checkinLinks.revoke')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
