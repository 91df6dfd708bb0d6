/**
 * The texts of the confirmation prompts and alerts, in one place: every destructive or irreversible action asks
 * first, always in the same words (the browser tests check them word for word).
 */
export const CONFIRM = {
  deleteRunner: 'Are you sure you want to delete this runner?',
  deleteRace: 'Are you sure you want to delete this race?',
  deleteCourse: 'Are you sure you want to delete this course?',
  deleteDevice: 'Are you sure you want to delete this device?',
  unassignDevice: 'Are you sure you want to unassign this device?',
  startRace: 'Are you sure you want to start this race?',
  endRace: 'Are you sure you want to end this race?',
  approveRace: 'Are you sure you want to approve this race?',
  checkinDnf: (bib: string) => `Record bib ${bib} as DNF (did not finish) at this checkpoint?`,
  revokeCheckinLink: 'Revoke this check-in link? Volunteers using it can no longer send entries.',
} as const;

export const ALERT = {
  deviceName: 'Please enter a name',
  gpxFile: 'Please select a GPX file first.',
} as const;

export function confirmed(text: string): boolean {
  return window.confirm(text);
}
