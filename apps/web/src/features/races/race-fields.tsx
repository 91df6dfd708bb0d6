import { useEffect, useId } from 'react';
import { loadRaceSchema } from './race-body';

export interface RaceFieldValues {
  Name: string;
  Description: string;
  Location: string;
  /** datetime-local value ("YYYY-MM-DDTHH:mm") in the viewer's time zone, or ''. */
  StartTime: string;
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
  // Fetch the schema the form is checked with while the director types, so Save does not wait for it.
  useEffect(() => void loadRaceSchema().catch(() => undefined), []);
  const set = (key: keyof RaceFieldValues) => (e: { target: { value: string } }) =>
    onChange({ ...values, [key]: e.target.value });
  return (
    <div className="form-grid">
      <div className="field">
        <label htmlFor={`${id}-name`}>
          Name{' '}
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
        <label htmlFor={`${id}-location`}>Location</label>
        <input
          id={`${id}-location`}
          name="Location"
          maxLength={500}
          value={values.Location}
          onChange={set('Location')}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-start`}>StartTime</label>
        <input
          id={`${id}-start`}
          name="StartTime"
          type="datetime-local"
          value={values.StartTime}
          onChange={set('StartTime')}
        />
      </div>
      <div className="field field-wide">
        <label htmlFor={`${id}-desc`}>Description</label>
        <textarea
          id={`${id}-desc`}
          name="Description"
          rows={3}
          maxLength={5000}
          value={values.Description}
          onChange={set('Description')}
        />
      </div>
    </div>
  );
}
