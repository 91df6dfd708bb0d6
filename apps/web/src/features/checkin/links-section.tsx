import { useCallback, useEffect, useId, useState } from 'react';
import type { CheckinLink, CreatedCheckinLink } from '@racebeacon/domain/checkin';
import type { Checkpoint } from '@racebeacon/domain/entities';
import { FormError, failureMessage } from '../../components/form-error';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { checkinLinksApi } from './api';
import './checkin.css';

/**
 * The race director's (or an admin's) check-in links: one per aid station, made for a checkpoint of the course.
 * A new link's address is shown once (the server keeps only a hash of its token), to copy and send to the
 * volunteers; links can be revoked. Lists what each link has brought in.
 */
export function CheckinLinksSection({ raceId }: { raceId: number }) {
  const id = useId();
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
      <h2 id={`${id}-title`}>Aid-station check-in links</h2>
      <p className="muted">
        Volunteers open a link on a phone (no account) and record runners in, out or DNF — also without
        network.
      </p>
      {checkpoints && checkpoints.length === 0 ? (
        <p className="muted">
          Upload a course first: its start, named waypoints and finish become the checkpoints.
        </p>
      ) : (
        <form
          className="checkin-links-form"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            Checkpoint
            <select value={checkpointId} onChange={(e) => setCheckpointId(e.target.value)} required>
              {(checkpoints ?? []).map((c) => (
                <option key={c.CheckpointId} value={c.CheckpointId}>
                  {c.Name} (km {c.DistanceKm.toFixed(1)})
                </option>
              ))}
            </select>
          </label>
          <label>
            Label (optional)
            <input
              value={label}
              maxLength={200}
              onChange={(e) => setLabel(e.target.value)}
              placeholder="e.g. Table 2"
            />
          </label>
          <button type="submit" className="btn btn-primary" disabled={!checkpointId}>
            Create link
          </button>
        </form>
      )}
      <FormError message={error} />
      {created && (
        <div className="checkin-links-created" role="status">
          <p>
            <strong>Link for {created.CheckpointName}</strong> — shown only now: copy it and send it to the
            volunteers.
          </p>
          <div className="checkin-links-url">
            <input
              readOnly
              value={fullUrl(created.Url)}
              aria-label="New check-in link address"
              onFocus={(e) => e.target.select()}
            />
            <button
              type="button"
              className="btn btn-secondary"
              onClick={() => void copy(fullUrl(created.Url))}
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        </div>
      )}
      {links.length > 0 && (
        <ul className="checkin-links-list" aria-label="Check-in links">
          {links.map((l) => (
            <li key={l.LinkId} className={l.RevokedAt ? 'is-revoked' : undefined}>
              <span className="checkin-links-name">
                <strong>{l.CheckpointName}</strong>
                {l.Label ? ` · ${l.Label}` : ''}
              </span>
              <span className="muted">
                {l.Entries} {l.Entries === 1 ? 'entry' : 'entries'}
                {l.RevokedAt ? ` · revoked ${new Date(l.RevokedAt).toLocaleString()}` : ''}
              </span>
              {!l.RevokedAt && (
                <button type="button" className="btn btn-ghost btn-small" onClick={() => void revoke(l)}>
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
