import { useId, useState } from 'react';
import type { SpotFeed } from '@racebeacon/domain/entities';
import { formatDateTime } from '../../lib/format';
import { useResource } from '../../lib/use-resource';
import { spotFeedsApi } from './api';

/**
 * SPOT shared-page feeds the server polls (every 2.5 minutes, only while a race using SPOT devices is live or
 * about to start). Devices with Source "spot" are matched by their HardwareId = the messenger's ESN.
 */
export function SpotFeedsSection() {
  const feeds = useResource(() => spotFeedsApi.list(), []);
  const [feedId, setFeedId] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();

  async function add() {
    const trimmed = feedId.trim();
    if (!trimmed) {
      setProblem('Please enter the feed id of the SPOT shared page.');
      return;
    }
    try {
      await spotFeedsApi.create({ FeedId: trimmed, ...(password ? { FeedPassword: password } : {}) });
      setFeedId('');
      setPassword('');
      setProblem(null);
    } catch (err) {
      setProblem((err as { message?: string }).message ?? 'The feed could not be added.');
    }
    await feeds.reload();
  }

  async function remove(feed: SpotFeed) {
    if (!window.confirm(`Are you sure you want to delete the SPOT feed ${feed.FeedId}?`)) return;
    await spotFeedsApi.remove(feed.Id).catch(() => undefined);
    await feeds.reload();
  }

  return (
    <section aria-labelledby={`${id}-title`} className="spot-feeds" style={{ marginTop: '2rem' }}>
      <div className="section-head">
        <h2 id={`${id}-title`}>SPOT feeds</h2>
      </div>
      <p className="muted">
        Create a Shared Page in your SPOT account with the race&apos;s devices and add its XML feed id here.
        Give each SPOT device the Source &quot;spot&quot; and its ESN (e.g. 0-2468013) as Hardware id.
      </p>
      <form
        className="card form-card inline-form"
        aria-label="New SPOT feed"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-feed`}>Feed id</label>
          <input
            id={`${id}-feed`}
            name="FeedId"
            maxLength={100}
            value={feedId}
            onChange={(e) => setFeedId(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-password`}>Feed password (optional)</label>
          <input
            id={`${id}-password`}
            name="FeedPassword"
            type="password"
            autoComplete="off"
            maxLength={200}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        <button type="submit" className="btn btn-primary">
          Add feed
        </button>
      </form>
      {problem && (
        <p role="alert" className="notice">
          {problem}
        </p>
      )}
      {feeds.data === undefined ? (
        feeds.error ? (
          <p className="muted">SPOT feeds could not be loaded.</p>
        ) : null
      ) : feeds.data.length === 0 ? (
        <p className="muted">No SPOT feed yet.</p>
      ) : (
        <div className="card table-card">
          <table className="table responsive-table" aria-label="SPOT feeds">
            <thead>
              <tr>
                <th scope="col">Feed id</th>
                <th scope="col">Password</th>
                <th scope="col">Last polled</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {feeds.data.map((f) => (
                <tr key={f.Id} data-testid="spot-feed-row">
                  <th scope="row" data-label="Feed id">
                    {f.FeedId}
                  </th>
                  <td data-label="Password">{f.HasPassword ? 'Yes' : 'No'}</td>
                  <td data-label="Last polled">{formatDateTime(f.LastPolledAt)}</td>
                  <td data-label="Status">
                    {f.LastError ?? (f.LastPolledAt ? 'OK' : 'Waiting for a live race')}
                  </td>
                  <td className="row-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(f)}
                      aria-label={`Delete SPOT feed ${f.FeedId}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
