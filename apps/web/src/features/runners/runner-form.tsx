import { useId, useState } from 'react';
import type { Gender } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import './runner-privacy.css';
import { useI18n } from '../../i18n';

export interface RunnerFieldValues {
  FirstName: string;
  LastName: string;
  BibNumber: string;
  Gender: Gender;
  Age: string;
  /** Privacy: no dot on the public map (the runner stays on the leaderboard). */
  HidePosition?: boolean;
}

export const emptyRunner: RunnerFieldValues = {
  FirstName: '',
  LastName: '',
  BibNumber: '',
  Gender: 'M',
  Age: '',
};

/** Add or edit a runner. Gender is M or F (the values the API accepts), M by default. */
export function RunnerForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
  title,
}: {
  initial: RunnerFieldValues;
  submitLabel: string;
  title: string;
  onSubmit(values: RunnerFieldValues): Promise<void>;
  onCancel(): void;
}) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const { t } = useI18n();
  const set = (key: Exclude<keyof RunnerFieldValues, 'HidePosition'>) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [key]: e.target.value }));
  return (
    <form
      className="runner-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        onSubmit(values).catch((err: unknown) => setError(failureMessage(err)));
      }}
    >
      <div className="form-grid runner-grid">
        <div className="field">
          <label htmlFor={`${id}-first`}>{t('runners.firstName')}</label>
          <input
            id={`${id}-first`}
            name="FirstName"
            required
            maxLength={100}
            value={values.FirstName}
            onChange={set('FirstName')}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-last`}>{t('runners.lastName')}</label>
          <input
            id={`${id}-last`}
            name="LastName"
            required
            maxLength={100}
            value={values.LastName}
            onChange={set('LastName')}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-bib`}>{t('runners.bibNumber')}</label>
          <input
            id={`${id}-bib`}
            name="BibNumber"
            maxLength={20}
            value={values.BibNumber}
            onChange={set('BibNumber')}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-gender`}>{t('board.gender')}</label>
          <select id={`${id}-gender`} name="Gender" value={values.Gender} onChange={set('Gender')}>
            <option value="M">M</option>
            <option value="F">F</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-age`}>{t('runners.age')}</label>
          <input
            id={`${id}-age`}
            name="Age"
            type="number"
            min={0}
            max={120}
            inputMode="numeric"
            value={values.Age}
            onChange={set('Age')}
          />
        </div>
        <label className="runner-privacy-check">
          <input
            name="HidePosition"
            type="checkbox"
            checked={values.HidePosition ?? false}
            onChange={(e) => setValues((v) => ({ ...v, HidePosition: e.target.checked }))}
          />
          {t('runners.hidePosition')}
        </label>
      </div>
      <FormError message={error} />
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          {submitLabel}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
