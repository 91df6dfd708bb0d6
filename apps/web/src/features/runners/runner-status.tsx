import { useId, useState } from 'react';
import type { ManualRunnerStatus, PublicRunner } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import { ModalDialog } from '../../components/modal-dialog';
import { runnersApi } from './api';
import { t, useI18n } from '../../i18n';
import './runner-status.css';

const LABEL = {
  DNS: 'runnerStatus.dns',
  DNF: 'runnerStatus.dnf',
  DSQ: 'runnerStatus.dsq',
} as const satisfies Record<ManualRunnerStatus, string>;

/** The director's runner read carries the status people set (DNS/DNF/DSQ) and why. */
type WithStatus = PublicRunner & { Status?: ManualRunnerStatus | null; StatusReason?: string | null };

/**
 * A runner's status set by people, on the runner's row: the current DNS/DNF/DSQ (with its reason as a tooltip) and
 * a Status button that sets one with a reason, or clears it. The leaderboard and the HQ log follow through the API.
 */
export function RunnerStatusControl({
  runner,
  onChanged,
}: {
  runner: PublicRunner;
  onChanged(): Promise<void>;
}) {
  const r = runner as WithStatus;
  const current = r.Status ?? null;
  const id = useId();
  useI18n();
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<ManualRunnerStatus | ''>(current ?? '');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const name = `${runner.FirstName} ${runner.LastName}`;

  function start() {
    setStatus(current ?? '');
    setReason(current ? (r.StatusReason ?? '') : '');
    setError(null);
    setOpen(true);
  }

  async function save() {
    setBusy(true);
    setError(null);
    try {
      await runnersApi.setStatus(runner.RunnerId, { Status: status || null, Reason: reason.trim() || null });
      setOpen(false);
      await onChanged();
    } catch (err) {
      setError(failureMessage(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <span className="runner-status">
      {current ? (
        <span className="pill pill-danger" data-testid="runner-status" title={r.StatusReason ?? undefined}>
          {current}
        </span>
      ) : null}
      <button
        type="button"
        className="btn btn-small"
        onClick={start}
        aria-label={t('runnerStatus.of', { name })}
      >
        {t('runnerStatus.button')}
      </button>
      {open && (
        <ModalDialog
          title={t('runnerStatus.of', { name })}
          onClose={() => setOpen(false)}
          onSubmit={() => void save()}
        >
          <div className="field">
            <label htmlFor={`${id}-status`}>{t('runnerStatus.button')}</label>
            <select
              id={`${id}-status`}
              value={status}
              onChange={(e) => setStatus(e.target.value as ManualRunnerStatus | '')}
              autoFocus
            >
              <option value="">{t('runnerStatus.none')}</option>
              {(Object.keys(LABEL) as ManualRunnerStatus[]).map((s) => (
                <option key={s} value={s}>
                  {t(LABEL[s])}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-reason`}>{t('runnerStatus.reason')}</label>
            <input
              id={`${id}-reason`}
              value={reason}
              maxLength={500}
              placeholder={status === 'DNF' ? t('runnerStatus.dnfExample') : t('runnerStatus.optional')}
              onChange={(e) => setReason(e.target.value)}
            />
          </div>
          <FormError message={error} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {status ? t('runnerStatus.set', { status }) : t('runnerStatus.clear')}
            </button>
          </div>
        </ModalDialog>
      )}
    </span>
  );
}
