import { useId, useState } from 'react';
import type { ManualRunnerStatus, PublicRunner } from '@racebeacon/domain/entities';
import { failureMessage, FormError } from '../../components/form-error';
import { ModalDialog } from '../../components/modal-dialog';
import { runnersApi } from './api';
import './runner-status.css';

const LABEL: Record<ManualRunnerStatus, string> = {
  DNS: 'DNS: did not start',
  DNF: 'DNF: did not finish',
  DSQ: 'DSQ: disqualified',
};

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
      <button type="button" className="btn btn-small" onClick={start} aria-label={`Status of ${name}`}>
        Status
      </button>
      {open && (
        <ModalDialog title={`Status of ${name}`} onClose={() => setOpen(false)} onSubmit={() => void save()}>
          <div className="field">
            <label htmlFor={`${id}-status`}>Status</label>
            <select
              id={`${id}-status`}
              value={status}
              onChange={(e) => setStatus(e.target.value as ManualRunnerStatus | '')}
              autoFocus
            >
              <option value="">None (racing normally)</option>
              {(Object.keys(LABEL) as ManualRunnerStatus[]).map((s) => (
                <option key={s} value={s}>
                  {LABEL[s]}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-reason`}>Reason</label>
            <input
              id={`${id}-reason`}
              value={reason}
              maxLength={500}
              placeholder={status === 'DNF' ? 'e.g. knee injury at Aid 2' : 'Optional'}
              onChange={(e) => setReason(e.target.value)}
            />
          </div>
          <FormError message={error} />
          <div className="dialog-actions">
            <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {status ? `Set ${status}` : 'Clear status'}
            </button>
          </div>
        </ModalDialog>
      )}
    </span>
  );
}
