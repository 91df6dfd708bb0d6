import { t } from '../i18n';

/**
 * The texts of the confirmation prompts and alerts, in one place: every destructive or irreversible action asks
 * first, always in the same words (the browser tests check the English ones word for word). The words are the
 * catalogue's (`confirm.*`, `alert.*` in src/i18n), read when the prompt is shown, so they are in the viewer's
 * language.
 */
export const CONFIRM = {
  get deleteRunner() {
    return t('confirm.deleteRunner');
  },
  get deleteRace() {
    return t('confirm.deleteRace');
  },
  get deleteCourse() {
    return t('confirm.deleteCourse');
  },
  get deleteDevice() {
    return t('confirm.deleteDevice');
  },
  get unassignDevice() {
    return t('confirm.unassignDevice');
  },
  get startRace() {
    return t('confirm.startRace');
  },
  get endRace() {
    return t('confirm.endRace');
  },
  get approveRace() {
    return t('confirm.approveRace');
  },
  checkinDnf: (bib: string) => t('confirm.checkinDnf', { bib }),
  get revokeCheckinLink() {
    return t('confirm.revokeCheckinLink');
  },
};

export const ALERT = {
  get deviceName() {
    return t('alert.deviceName');
  },
  get gpxFile() {
    return t('alert.gpxFile');
  },
};

export function confirmed(text: string): boolean {
  return window.confirm(text);
}
