import { Fragment, useId, useState } from 'react';
import type { AvailableDevice, PublicRunner, Runner } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import { SelectDialog } from '../../components/select-dialog';
import { CONFIRM, confirmed } from '../../lib/confirm';
import { runnersApi } from './api';
import { emptyRunner, RunnerForm, type RunnerFieldValues } from './runner-form';
import { RunnerStatusControl } from './runner-status';
import { RunnerTrackerButton } from './runner-tracker';
import { RunnerImport } from './runner-import';
import { t, useI18n } from '../../i18n';

const toBody = (v: RunnerFieldValues) => ({
  FirstName: v.FirstName.trim(),
  LastName: v.LastName.trim(),
  BibNumber: v.BibNumber.trim() || null,
  Gender: v.Gender,
  Age: v.Age === '' ? null : Number(v.Age),
  ...(v.HidePosition !== undefined ? { HidePosition: v.HidePosition } : {}),
});

const toValues = (r: PublicRunner): RunnerFieldValues => ({
  FirstName: r.FirstName,
  LastName: r.LastName,
  BibNumber: r.BibNumber ?? '',
  Gender: r.Gender,
  Age: r.Age === null || r.Age === undefined ? '' : String(r.Age),
  HidePosition: (r as Runner).HidePosition ?? false,
});

const deviceOf = (r: PublicRunner): number | null =>
  'DeviceId' in r ? ((r as Runner).DeviceId ?? null) : null;

/** The held device's name (director responses carry it); the id only if an older server left it out. */
const deviceLabel = (r: PublicRunner, deviceId: number): string =>
  (r as Runner).DeviceName || t('runners.deviceNumber', { id: deviceId });

/**
 * How the runners table hands a race's tracking devices to its runners. The devices feature owns these calls; the
 * screen that renders the table passes them in.
 */
export interface RunnerDeviceActions {
  /** The race's devices no runner holds yet. */
  available(raceId: number): Promise<AvailableDevice[]>;
  assignRunner(deviceId: number, raceId: number, runnerId: number): Promise<unknown>;
  unassign(deviceId: number, raceId: number): Promise<unknown>;
}

/**
 * The runners table. The race director adds, edits and deletes runners and hands devices to them. The device column
 * appears only when `deviceActions` is given: the screen passes them to the owner of an approved race, since an
 * administrator can only pick an approved race when handing it devices.
 */
export function RunnersSection({
  raceId,
  runners,
  canManage,
  deviceActions,
  onChanged,
}: {
  raceId: number;
  runners: PublicRunner[];
  canManage: boolean;
  deviceActions?: RunnerDeviceActions;
  onChanged(): Promise<void>;
}) {
  const canAssignDevices = deviceActions !== undefined;
  const id = useId();
  useI18n();
  const [adding, setAdding] = useState(false);
  const [editingId, setEditingId] = useState<number | null>(null);
  const [assignTo, setAssignTo] = useState<PublicRunner | null>(null);
  const [available, setAvailable] = useState<AvailableDevice[] | undefined>();
  // Why the last row action (delete, assign, unassign) did nothing; the add/edit forms show their own.
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(failureMessage(err));
  const sorted = [...runners].sort(
    (a, b) =>
      (a.BibNumber ?? '').localeCompare(b.BibNumber ?? '', undefined, { numeric: true }) ||
      a.LastName.localeCompare(b.LastName),
  );
  const columns = 4 + (canAssignDevices ? 1 : 0) + (canManage ? 1 : 0);

  async function add(values: RunnerFieldValues) {
    await runnersApi.create(raceId, toBody(values));
    setAdding(false);
    await onChanged();
  }

  async function save(runner: PublicRunner, values: RunnerFieldValues) {
    await runnersApi.update(raceId, { ...(runner as Runner), ...toBody(values) });
    setEditingId(null);
    await onChanged();
  }

  async function remove(runner: PublicRunner) {
    if (!confirmed(CONFIRM.deleteRunner)) return;
    setError(null);
    await runnersApi.remove(raceId, runner.RunnerId).catch(fail);
    await onChanged();
  }

  function openAssign(runner: PublicRunner) {
    setAvailable(undefined);
    setAssignTo(runner);
    deviceActions
      ?.available(raceId)
      .then(setAvailable)
      .catch(() => setAvailable([]));
  }

  async function assign(deviceId: string) {
    const runner = assignTo;
    setAssignTo(null);
    if (!runner || !deviceActions) return;
    setError(null);
    await deviceActions.assignRunner(Number(deviceId), raceId, runner.RunnerId).catch(fail);
    await onChanged();
  }

  async function unassign(deviceId: number) {
    if (!deviceActions || !confirmed(CONFIRM.unassignDevice)) return;
    setError(null);
    await deviceActions.unassign(deviceId, raceId).catch(fail);
    await onChanged();
  }

  return (
    <section className="card runners-card" aria-labelledby={`${id}-title`} data-testid="runners-section">
      <div className="section-head">
        <h2 id={`${id}-title`}>
          {t('requests.runners')} <span className="count">{runners.length}</span>
        </h2>
        {canManage && !adding && (
          <button type="button" className="btn btn-primary btn-small" onClick={() => setAdding(true)}>
            {t('runners.add')}
          </button>
        )}
      </div>
      <FormError message={error} />
      {canManage && <RunnerImport raceId={raceId} onImported={onChanged} />}
      {adding && (
        <RunnerForm
          title={t('runners.new')}
          initial={emptyRunner}
          submitLabel={t('runners.addSubmit')}
          onSubmit={add}
          onCancel={() => setAdding(false)}
        />
      )}
      {runners.length === 0 ? (
        <p className="muted">
          {t('runners.none')}
          {canManage && !adding && ` ${t('runners.noneLead')}`}
        </p>
      ) : (
        <table
          // Read-only (visitors): four short columns fit a phone as a plain table, one line per runner, instead of
          // a tall stacked card per runner. The director's table (devices, actions) stacks on phones.
          className={`table runners-table ${canManage ? 'responsive-table' : 'runners-table-readonly'}`}
          aria-labelledby={`${id}-title`}
        >
          <thead>
            <tr>
              <th scope="col">{t('runners.bib')}</th>
              <th scope="col">{t('runners.name')}</th>
              <th scope="col">{t('board.gender')}</th>
              <th scope="col">{t('runners.age')}</th>
              {canAssignDevices && <th scope="col">{t('runners.device')}</th>}
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">{t('runners.actions')}</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => {
              const deviceId = deviceOf(r);
              const fullName = `${r.FirstName} ${r.LastName}`;
              return (
                <Fragment key={r.RunnerId}>
                  {editingId === r.RunnerId ? (
                    <tr className="editing-row">
                      <td colSpan={columns}>
                        <RunnerForm
                          title={t('runners.edit', { name: fullName })}
                          initial={toValues(r)}
                          submitLabel={t('common.save')}
                          onSubmit={(v) => save(r, v)}
                          onCancel={() => setEditingId(null)}
                        />
                      </td>
                    </tr>
                  ) : (
                    <tr data-testid="runner-row">
                      <td data-label={t('runners.bib')} className="bib">
                        {r.BibNumber ?? '-'}
                      </td>
                      <th scope="row" data-label={t('runners.name')}>
                        {fullName}
                        {(r as Runner).HidePosition && (
                          <>
                            {' '}
                            <span className="pill" data-testid="runner-position-hidden">
                              {t('runners.positionHidden')}
                            </span>
                          </>
                        )}
                      </th>
                      <td data-label={t('board.gender')}>{r.Gender}</td>
                      <td data-label={t('runners.age')}>{r.Age ?? '-'}</td>
                      {canAssignDevices && (
                        <td data-label={t('runners.device')}>
                          {deviceId ? (
                            <span className="device-cell">
                              <span className="pill pill-accent" data-testid="runner-device">
                                {deviceLabel(r, deviceId)}
                              </span>
                              <button
                                type="button"
                                className="btn btn-small btn-ghost"
                                onClick={() => void unassign(deviceId)}
                              >
                                {t('runners.unassign')}
                              </button>
                            </span>
                          ) : (
                            <button type="button" className="btn btn-small" onClick={() => openAssign(r)}>
                              {t('runners.assign')}
                            </button>
                          )}
                          <RunnerTrackerButton
                            runnerId={r.RunnerId}
                            name={fullName}
                            hasDevice={deviceId !== null}
                            onChanged={onChanged}
                          />
                        </td>
                      )}
                      {canManage && (
                        <td className="row-actions">
                          <RunnerStatusControl runner={r} onChanged={onChanged} />
                          <button
                            type="button"
                            className="btn btn-small"
                            onClick={() => {
                              setAdding(false);
                              setEditingId(r.RunnerId);
                            }}
                          >
                            {t('raceHero.editButton')}
                          </button>
                          <button
                            type="button"
                            className="btn btn-small btn-danger"
                            onClick={() => void remove(r)}
                          >
                            {t('common.delete')}
                          </button>
                        </td>
                      )}
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      )}
      {assignTo && (
        <SelectDialog
          title={t('runners.assignTitle', { name: `${assignTo.FirstName} ${assignTo.LastName}` })}
          label={t('runners.device')}
          options={available?.map((d) => ({ value: String(d.DeviceId), label: d.Name }))}
          emptyText={t('runners.noDevice')}
          onConfirm={(v) => void assign(v)}
          onClose={() => setAssignTo(null)}
        />
      )}
    </section>
  );
}
