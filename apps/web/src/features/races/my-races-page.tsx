import { useState } from 'react';
import { Link } from 'react-router';
import { PageHeader, EmptyState, PageSpinner } from '../../components/page-state';
import { failureMessage, FormError } from '../../components/form-error';
import { paths } from '../../lib/paths';
import { byRelevance } from '../../lib/race-order';
import { useResource } from '../../lib/use-resource';
import { directorRacesApi } from './api';
import { checkedRaceBody } from './race-body';
import { directorFlags, RaceCard } from './race-card';
import { emptyRaceFields, RaceFields, type RaceFieldValues } from './race-fields';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useI18n } from '../../i18n';
import { RichText } from '../../i18n/rich-text';

/** /my-races: the signed-in director's races and the race creation form. */
export function MyRacesPage() {
  const { t } = useI18n();
  useDocumentTitle(t('nav.myRaces'));
  const races = useResource(() => directorRacesApi.list(), []);
  const [adding, setAdding] = useState(false);
  const [values, setValues] = useState<RaceFieldValues>(emptyRaceFields);
  const [error, setError] = useState<string | null>(null);
  // The race just created: the form closes, so say what happened and what comes next.
  const [created, setCreated] = useState<{ id: number; name: string } | null>(null);

  async function create() {
    setError(null);
    setCreated(null);
    const checked = await checkedRaceBody(values);
    if (checked.error !== undefined) {
      setError(checked.error);
      return;
    }
    const race = await directorRacesApi.create(checked.body);
    setValues(emptyRaceFields);
    setAdding(false);
    setCreated({ id: race.RaceId, name: race.Name });
    await races.reload();
  }

  return (
    <>
      <PageHeader
        title={t('nav.myRaces')}
        actions={
          <button
            type="button"
            className={adding ? 'btn btn-ghost' : 'btn btn-primary'}
            aria-expanded={adding}
            aria-controls="create-race"
            onClick={() => {
              setError(null);
              setCreated(null);
              setAdding((a) => !a);
            }}
          >
            {adding ? t('common.cancel') : t('myRaces.add')}
          </button>
        }
      >
        {t('myRaces.lead')}
      </PageHeader>
      {created && !adding && (
        <p className="notice success-note" role="status" data-testid="race-created">
          <RichText
            text={t('myRaces.created', { name: created.name })}
            tags={[<Link key="open" to={paths.unapprovedRace(created.id)} />]}
          />
        </p>
      )}
      {adding && (
        <form
          id="create-race"
          className="card form-card"
          aria-label={t('myRaces.new')}
          onSubmit={(e) => {
            e.preventDefault();
            create().catch((err: unknown) => setError(failureMessage(err)));
          }}
        >
          <h2>{t('myRaces.new')}</h2>
          <RaceFields values={values} onChange={setValues} />
          <FormError message={error} />
          <div className="form-actions">
            <button type="submit" className="btn btn-primary">
              {t('myRaces.create')}
            </button>
          </div>
        </form>
      )}
      {races.data === undefined ? (
        races.error ? (
          <EmptyState title={t('myRaces.loadFailed')} />
        ) : (
          <PageSpinner />
        )
      ) : races.data.length === 0 ? (
        <EmptyState title={t('myRaces.none')}>{t('myRaces.noneLead')}</EmptyState>
      ) : (
        <div className="card-grid">
          {byRelevance(races.data).map((race) => (
            <RaceCard
              key={race.RaceId}
              race={race}
              to={race.Approved ? paths.race(race.RaceId) : paths.unapprovedRace(race.RaceId)}
              fields={directorFlags(race)}
            />
          ))}
        </div>
      )}
    </>
  );
}
