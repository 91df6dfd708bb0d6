import type { Race } from '@racebeacon/domain';
import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { formatDateTime } from '../../lib/format';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { useResource } from '../../lib/use-resource';
import { requestsApi } from './api';
import { useDocumentTitle } from '../../lib/use-document-title';

/** /race-requests (admin): races waiting for approval. */
export function RaceRequestsPage() {
  useDocumentTitle('Race Requests');
  const pending = useResource(() => requestsApi.pending(), []);

  async function approve(race: Race) {
    if (!confirmed(CONFIRM.approveRace)) return;
    await requestsApi.approve(race.RaceId).catch(() => undefined);
    await pending.reload();
  }

  return (
    <>
      <PageHeader title="Race Requests">
        Races waiting for approval. An approved race becomes public.
      </PageHeader>
      {pending.data === undefined ? (
        pending.error ? (
          <EmptyState title="Requests could not be loaded." />
        ) : (
          <PageSpinner />
        )
      ) : pending.data.length === 0 ? (
        <EmptyState title="No pending requests.">New race requests from directors appear here.</EmptyState>
      ) : (
        <div className="card-grid">
          {pending.data.map((race) => (
            <article key={race.RaceId} className="card request-card" data-testid="request-card">
              <h2 className="race-card-title">{race.Name}</h2>
              <p className="race-card-desc">{race.Description || 'No description.'}</p>
              <dl className="facts">
                <div>
                  <dt>Location</dt>
                  <dd>{race.Location || '-'}</dd>
                </div>
                <div>
                  <dt>StartTime</dt>
                  <dd>{formatDateTime(race.StartTime)}</dd>
                </div>
              </dl>
              <div className="card-actions">
                <button type="button" className="btn btn-primary" onClick={() => void approve(race)}>
                  Approve
                </button>
              </div>
            </article>
          ))}
        </div>
      )}
    </>
  );
}
