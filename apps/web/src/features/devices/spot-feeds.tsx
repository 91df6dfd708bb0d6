import { useId, useState } from 'react';
import type { SpotFeed } from '@racebeacon/domain/entities';
import { formatDateTime } from '../../lib/format';
import { useResource } from '../../lib/use-resource';
import { spotFeedsApi } from './api';
import { t, useI18n } from '../../i18n';

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
  useI18n();

  async function add() {
    const trimmed = feedId.trim();
    if (!trimmed) {
      setProblem(t('spot.enterId'));
      return;
    }
    try {
      await spotFeedsApi.create({ FeedId: trimmed, ...(password ? { FeedPassword: password } : {}) });
      setFeedId('');
      setPassword('');
      setProblem(null);
    } catch (err) {
      setProblem((err as { message?: string }).message ?? t('spot.addFailed'));
    }
    await feeds.reload();
  }

  async function remove(feed: SpotFeed) {
    if (!window.confirm(t('spot.confirmDelete', { id: feed.FeedId }))) return;
    await spotFeedsApi.remove(feed.Id).catch(() => undefined);
    await feeds.reload();
  }

  return (
    <section aria-labelledby={`${id}-title`} className="spot-feeds" style={{ marginTop: '2rem' }}>
      <div className="section-head">
        <h2 id={`${id}-title`}>{t('spot.title')}</h2>
      </div>
      <p className="muted">{t('spot.lead')}</p>
      <form
        className="card form-card inline-form"
        aria-label={t('spot.new')}
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-feed`}>{t('spot.feedId')}</label>
          <input
            id={`${id}-feed`}
            name="FeedId"
            maxLength={100}
            value={feedId}
            onChange={(e) => setFeedId(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-password`}>{t('spot.password')}</label>
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
          {t('spot.add')}
        </button>
      </form>
      {problem && (
        <p role="alert" className="notice">
          {problem}
        </p>
      )}
      {feeds.data === undefined ? (
        feeds.error ? (
          <p className="muted">{t('spot.loadFailed')}</p>
        ) : null
      ) : feeds.data.length === 0 ? (
        <p className="muted">{t('spot.none')}</p>
      ) : (
        <div className="card table-card">
          <table className="table responsive-table" aria-label={t('spot.title')}>
            <thead>
              <tr>
                <th scope="col">{t('spot.feedId')}</th>
                <th scope="col">{t('spot.passwordColumn')}</th>
                <th scope="col">{t('spot.lastPolled')}</th>
                <th scope="col">{t('board.status')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('runners.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {feeds.data.map((f) => (
                <tr key={f.Id} data-testid="spot-feed-row">
                  <th scope="row" data-label={t('spot.feedId')}>
                    {f.FeedId}
                  </th>
                  <td data-label={t('spot.passwordColumn')}>
                    {f.HasPassword ? t('spot.yes') : t('spot.no')}
                  </td>
                  <td data-label={t('spot.lastPolled')}>{formatDateTime(f.LastPolledAt)}</td>
                  <td data-label={t('board.status')}>
                    {f.LastError ?? (f.LastPolledAt ? t('spot.ok') : t('spot.waiting'))}
                  </td>
                  <td className="row-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-danger"
                      onClick={() => void remove(f)}
                      aria-label={t('spot.deleteLabel', { id: f.FeedId })}
                    >
                      {t('common.delete')}
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
