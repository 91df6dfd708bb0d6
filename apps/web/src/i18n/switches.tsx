import { LANGUAGE_NAMES, LANGUAGES, isLanguage, setUnits, type Units } from './settings';
import { setLanguage, useI18n } from './index';

/** The language switch (footer, check-in page): the languages by their own names; the choice is kept. */
export function LanguageSwitch({ className }: { className?: string }) {
  const { t, language } = useI18n();
  return (
    <label className={className ?? 'locale-switch'}>
      <span>{t('footer.language')}</span>
      <select
        name="language"
        data-testid="language-switch"
        value={language}
        onChange={(e) => {
          if (isLanguage(e.target.value)) void setLanguage(e.target.value);
        }}
      >
        {LANGUAGES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The units switch: km with min/km, or miles with min/mi; the choice is kept. */
export function UnitsSwitch() {
  const { t, units } = useI18n();
  return (
    <label className="locale-switch">
      <span>{t('footer.units')}</span>
      <select
        name="units"
        data-testid="units-switch"
        value={units}
        onChange={(e) => setUnits(e.target.value as Units)}
      >
        <option value="km">{t('footer.unitsKm')}</option>
        <option value="mi">{t('footer.unitsMi')}</option>
      </select>
    </label>
  );
}
