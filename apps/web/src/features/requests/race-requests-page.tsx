import { useState } from 'react';
import type { Race, RaceRequest } from '@racebeacon/domain/entities';
import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { failureMessage, FormError } from '../../components/form-error';
import { formatDateTime } from '../../lib/format';
import { formatLength, formatHeight } from '../../i18n/format';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { inLanguage, useI18n } from '../../i18n';
import { useResource } from '../../lib/use-resource';
import { requestsApi } from './api';
import { useDocumentTitle } from '../../lib/use-document-title';
import { ExpandableDescription } from './expandable-description';

/** A pending race with, when its detail could be read, its runner count and course. */
type Pending = Race & Partial<Pick<RaceRequest, 'RunnerCount' | 'Course'>>;

async function loadPending(): Promise<Pending[]> {
  const races = await requestsApi.pending();
  // The card alone says little: the admin also sees how far the director got (runners, course) before approving.
  return Promise.all(races.map((race) => requestsApi.detail(race.RaceId).catch(() => race)));
}

/** /race-requests (admin): races waiting for approval. */
export function RaceRequestsPage() {
  const { t } = useI18n();
  useDocumentTitle(t('nav.raceRequests'));
  const pending = useResource(loadPending, []);
  const [failed, setFailed] = useState<{ raceId: number; message: string } | null>(null);

  async function approve(race: Race) {
    if (!confirmed(CONFIRM.approveRace)) return;
    setFailed(null);
    await requestsApi
      .approve(race.RaceId)
      .catch((err: unknown) => setFailed({ raceId: race.RaceId, message: failureMessage(err) }));
    await pending.reload();
  }

  return (
    <>
      <PageHeader title={t('nav.raceRequests')}>{t('requests.lead')}</PageHeader>
      {pending.data === undefined ? (
        pending.error ? (
          <EmptyState title={t('requests.loadFailed')} />
        ) : (
          <PageSpinner />
        )
      ) : pending.data.length === 0 ? (
        <EmptyState title={t('requests.none')}>{t('requests.noneLead')}</EmptyState>
      ) : (
        <div className="card-grid">
          {pending.data.map((race) => (
            <article key={race.RaceId} className="card request-card" data-testid="request-card">
              <h2 className="race-card-title">{race.Name}</h2>
              {race.Description ? (
                <ExpandableDescription text={race.Description} id={`request-desc-${race.RaceId}`} />
              ) : (
                <p className="race-card-desc">{t('requests.noDescription')}</p>
              )}
              <dl className="facts">
                <div>
                  <dt>{t('races.location')}</dt>
                  <dd>{race.Location || '-'}</dd>
                </div>
                <div>
                  <dt>{t('races.startTime')}</dt>
                  <dd>{formatDateTime(race.StartTime)}</dd>
                </div>
                {race.RunnerCount !== undefined && (
                  <div>
                    <dt>{t('requests.runners')}</dt>
                    <dd data-testid="request-runners">{race.RunnerCount}</dd>
                  </div>
                )}
                {race.Course !== undefined && (
                  <div>
                    <dt>{t('course.title')}</dt>
                    <dd data-testid="request-course">
                      {race.Course
                        ? t('requests.courseFacts', {
                            length: formatLength(race.Course.LengthM),
                            climb: formatHeight(race.Course.ClimbM),
                          })
                        : t('requests.noCourse')}
                    </dd>
                  </div>
                )}
              </dl>
              <div className="card-actions">
                <button type="button" className="btn btn-primary" onClick={() => void approve(race)}>
                  {t('requests.approve')}
                </button>
                {race.Course && (
                  <a
                    href={inLanguage(race.Course.MapUrl)}
                    target="_blank"
                    rel="noopener noreferrer"
                    className="link-muted"
                  >
                    {t('course.viewMap')}
                    <span className="visually-hidden">{t('requests.mapOf', { name: race.Name })}</span>
                  </a>
                )}
              </div>
              {failed?.raceId === race.RaceId && <FormError message={failed.message} />}
            </article>
          ))}
        </div>
      )}
    </>
  );
}
