import { useEffect, useId, useState } from 'react';
import { failureMessage, FormError } from '../../components/form-error';
import { ALERT_SETTINGS_LIMITS as LIMITS, type AlertSettings } from './alert-types';
import { hqApi } from './api';
import { useI18n, type TextKey } from '../../i18n';

type NumberField = Exclude<keyof AlertSettings, 'HelpKeyword'>;

const FIELDS: { key: NumberField; label: TextKey; hint: TextKey; min: number; max: number; step: number }[] =
  [
    {
      key: 'NoMovementMinutes',
      label: 'hq.settingsForm.noMovement',
      hint: 'hq.settingsForm.noMovementHint',
      min: LIMITS.NoMovementMinutes.min,
      max: LIMITS.NoMovementMinutes.max,
      step: 1,
    },
    {
      key: 'LostSignalFactor',
      label: 'hq.settingsForm.lostSignal',
      hint: 'hq.settingsForm.lostSignalHint',
      min: LIMITS.LostSignalFactor.min,
      max: LIMITS.LostSignalFactor.max,
      step: 0.1,
    },
    {
      key: 'LowBatteryPercent',
      label: 'hq.settingsForm.lowBattery',
      hint: 'hq.settingsForm.lowBatteryHint',
      min: LIMITS.LowBatteryPercent.min,
      max: LIMITS.LowBatteryPercent.max,
      step: 1,
    },
    {
      key: 'OffCourseFixes',
      label: 'hq.settingsForm.offCourse',
      hint: 'hq.settingsForm.offCourseHint',
      min: LIMITS.OffCourseFixes.min,
      max: LIMITS.OffCourseFixes.max,
      step: 1,
    },
    {
      key: 'AidStationRadiusM',
      label: 'hq.settingsForm.aidZone',
      hint: 'hq.settingsForm.aidZoneHint',
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
  const { t } = useI18n();

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

  if (!values)
    return error ? <FormError message={error} /> : <p className="muted">{t('hq.settingsForm.loading')}</p>;
  const set = (key: keyof AlertSettings) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setSaved(false);
    setValues({ ...values, [key]: e.target.value });
  };

  return (
    <form className="hq-settings" onSubmit={submit} aria-label={t('hq.settings')}>
      <div className="form-grid">
        {FIELDS.map((f) => (
          <div className="field" key={f.key}>
            <label htmlFor={`${prefix}-${f.key}`}>{t(f.label)}</label>
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
              {t(f.hint)}
            </small>
          </div>
        ))}
        <div className="field">
          <label htmlFor={`${prefix}-HelpKeyword`}>{t('hq.settingsForm.helpKeyword')}</label>
          <input
            id={`${prefix}-HelpKeyword`}
            type="text"
            maxLength={LIMITS.HelpKeywordMaxLength}
            value={values.HelpKeyword}
            onChange={set('HelpKeyword')}
            aria-describedby={`${prefix}-HelpKeyword-hint`}
          />
          <small id={`${prefix}-HelpKeyword-hint`} className="muted">
            {t('hq.settingsForm.helpKeywordHint')}
          </small>
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          {t('hq.settingsForm.save')}
        </button>
        {saved ? (
          <span role="status" className="hq-saved">
            {t('hq.settingsForm.saved')}
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
