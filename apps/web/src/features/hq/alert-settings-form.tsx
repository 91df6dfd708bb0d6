import { useEffect, useId, useState } from 'react';
import { failureMessage, FormError } from '../../components/form-error';
import { ALERT_SETTINGS_LIMITS as LIMITS, type AlertSettings } from './alert-types';
import { hqApi } from './api';

type NumberField = Exclude<keyof AlertSettings, 'HelpKeyword'>;

const FIELDS: { key: NumberField; label: string; hint: string; min: number; max: number; step: number }[] = [
  {
    key: 'NoMovementMinutes',
    label: 'No movement after (minutes)',
    hint: 'Progress under 100 m for this long while fixes arrive.',
    min: LIMITS.NoMovementMinutes.min,
    max: LIMITS.NoMovementMinutes.max,
    step: 1,
  },
  {
    key: 'LostSignalFactor',
    label: 'Lost signal after (× expected interval)',
    hint: 'No fix for this many of the tracker’s expected intervals.',
    min: LIMITS.LostSignalFactor.min,
    max: LIMITS.LostSignalFactor.max,
    step: 0.1,
  },
  {
    key: 'LowBatteryPercent',
    label: 'Low battery at (%)',
    hint: 'Or when the tracker reports LOW.',
    min: LIMITS.LowBatteryPercent.min,
    max: LIMITS.LowBatteryPercent.max,
    step: 1,
  },
  {
    key: 'OffCourseFixes',
    label: 'Off course after (fixes)',
    hint: 'Raised after more than this many fixes in a row off the course.',
    min: LIMITS.OffCourseFixes.min,
    max: LIMITS.OffCourseFixes.max,
    step: 1,
  },
  {
    key: 'AidStationRadiusM',
    label: 'Aid station zone (m)',
    hint: 'No-movement waits twice as long inside it.',
    min: LIMITS.AidStationRadiusM.min,
    max: LIMITS.AidStationRadiusM.max,
    step: 10,
  },
];

/** The race's alert thresholds, for its director (GET/PUT alert-settings). */
export function AlertSettingsForm({ raceId }: { raceId: number }) {
  const [values, setValues] = useState<Record<keyof AlertSettings, string> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const prefix = useId();

  useEffect(() => {
    let live = true;
    hqApi.settings(raceId).then(
      (s) => live && setValues(toForm(s)),
      (err: unknown) => live && setError(failureMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [raceId]);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!values) return;
    setError(null);
    setSaved(false);
    try {
      const body: AlertSettings = {
        NoMovementMinutes: Number(values.NoMovementMinutes),
        LostSignalFactor: Number(values.LostSignalFactor),
        LowBatteryPercent: Number(values.LowBatteryPercent),
        OffCourseFixes: Number(values.OffCourseFixes),
        AidStationRadiusM: Number(values.AidStationRadiusM),
        HelpKeyword: values.HelpKeyword.trim() || null,
      };
      setValues(toForm(await hqApi.saveSettings(raceId, body)));
      setSaved(true);
    } catch (err) {
      setError(failureMessage(err));
    }
  };

  if (!values) return error ? <FormError message={error} /> : <p className="muted">Loading the settings…</p>;
  const set = (key: keyof AlertSettings) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setSaved(false);
    setValues({ ...values, [key]: e.target.value });
  };

  return (
    <form className="hq-settings" onSubmit={submit} aria-label="Alert settings">
      <div className="form-grid">
        {FIELDS.map((f) => (
          <div className="field" key={f.key}>
            <label htmlFor={`${prefix}-${f.key}`}>{f.label}</label>
            <input
              id={`${prefix}-${f.key}`}
              type="number"
              inputMode="decimal"
              required
              min={f.min}
              max={f.max}
              step={f.step}
              value={values[f.key]}
              onChange={set(f.key)}
              aria-describedby={`${prefix}-${f.key}-hint`}
            />
            <small id={`${prefix}-${f.key}-hint`} className="muted">
              {f.hint}
            </small>
          </div>
        ))}
        <div className="field">
          <label htmlFor={`${prefix}-HelpKeyword`}>Help keyword (inReach messages)</label>
          <input
            id={`${prefix}-HelpKeyword`}
            type="text"
            maxLength={LIMITS.HelpKeywordMaxLength}
            value={values.HelpKeyword}
            onChange={set('HelpKeyword')}
            aria-describedby={`${prefix}-HelpKeyword-hint`}
          />
          <small id={`${prefix}-HelpKeyword-hint`} className="muted">
            A message containing it raises a help alert. Empty: none.
          </small>
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          Save settings
        </button>
        {saved ? (
          <span role="status" className="hq-saved">
            Saved
          </span>
        ) : null}
      </div>
      <FormError message={error} />
    </form>
  );
}

function toForm(s: AlertSettings): Record<keyof AlertSettings, string> {
  return {
    NoMovementMinutes: String(s.NoMovementMinutes),
    LostSignalFactor: String(s.LostSignalFactor),
    LowBatteryPercent: String(s.LowBatteryPercent),
    OffCourseFixes: String(s.OffCourseFixes),
    AidStationRadiusM: String(s.AidStationRadiusM),
    HelpKeyword: s.HelpKeyword ?? '',
  };
}
