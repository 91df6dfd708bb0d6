import { useEffect, useId } from 'react';
import { loadRaceSchema } from './race-body';
import './race-privacy.css';
import { useI18n } from '../../i18n';

export interface RaceFieldValues {
  Name: string;
  Description: string;
  Location: string;
  /** datetime-local value ("YYYY-MM-DDTHH:mm") in the viewer's time zone, or ''. */
  StartTime: string;
  /**
   * Privacy of runners, on the race editor only (absent on the create form: the defaults): minutes the public sees
   * the race late, whether trails are public, days after the end the positions are kept ('' : kept).
   */
  PublicDelayMin?: string;
  TrailsPublic?: boolean;
  RetentionDays?: string;
}

export const emptyRaceFields: RaceFieldValues = { Name: '', Description: '', Location: '', StartTime: '' };

/** Name, Description, Location, StartTime: the create form and the race editor share these inputs. */
export function RaceFields({
  values,
  onChange,
}: {
  values: RaceFieldValues;
  onChange(values: RaceFieldValues): void;
}) {
  const id = useId();
  const { t } = useI18n();
  // Fetch the schema the form is checked with while the director types, so Save does not wait for it.
  useEffect(() => void loadRaceSchema().catch(() => undefined), []);
  const set = (key: Exclude<keyof RaceFieldValues, 'TrailsPublic'>) => (e: { target: { value: string } }) =>
    onChange({ ...values, [key]: e.target.value });
  return (
    <div className="form-grid">
      <div className="field">
        <label htmlFor={`${id}-name`}>
          {t('raceFields.name')}{' '}
          <span className="req" aria-hidden="true">
            *
          </span>
        </label>
        <input
          id={`${id}-name`}
          name="Name"
          required
          maxLength={200}
          value={values.Name}
          onChange={set('Name')}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-location`}>{t('races.location')}</label>
        <input
          id={`${id}-location`}
          name="Location"
          maxLength={500}
          value={values.Location}
          onChange={set('Location')}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-start`}>{t('races.startTime')}</label>
        <input
          id={`${id}-start`}
          name="StartTime"
          type="datetime-local"
          value={values.StartTime}
          onChange={set('StartTime')}
        />
      </div>
      <div className="field field-wide">
        <label htmlFor={`${id}-desc`}>{t('raceFields.description')}</label>
        <textarea
          id={`${id}-desc`}
          name="Description"
          rows={3}
          maxLength={5000}
          value={values.Description}
          onChange={set('Description')}
        />
      </div>
      {values.PublicDelayMin !== undefined && (
        <fieldset className="field field-wide">
          <legend>{t('raceFields.privacy')}</legend>
          <div className="form-grid">
            <div className="field">
              <label htmlFor={`${id}-delay`}>{t('raceFields.delay')}</label>
              <input
                id={`${id}-delay`}
                name="PublicDelayMin"
                type="number"
                min={0}
                max={1440}
                step={1}
                value={values.PublicDelayMin}
                onChange={set('PublicDelayMin')}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-retention`}>{t('raceFields.retention')}</label>
              <input
                id={`${id}-retention`}
                name="RetentionDays"
                type="number"
                min={0}
                max={3650}
                step={1}
                value={values.RetentionDays ?? ''}
                onChange={set('RetentionDays')}
              />
            </div>
            <label className="privacy-check">
              <input
                name="TrailsPublic"
                type="checkbox"
                checked={values.TrailsPublic ?? true}
                onChange={(e) => onChange({ ...values, TrailsPublic: e.target.checked })}
              />
              {t('raceFields.trailsPublic')}
            </label>
          </div>
        </fieldset>
      )}
    </div>
  );
}
