import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import { disablePush, enablePush, PushError, pushEnabled, type PushProblem } from './push';
import './notify.css';

const PROBLEM_TEXT: Record<PushProblem, () => string> = {
  unsupported: () => t('runner.notifyUnsupported'),
  denied: () => t('runner.notifyDenied'),
  dismissed: () => t('runner.notifyDismissed'),
  failed: () => t('runner.notifyFailed'),
};

/**
 * "Notify me" beside Follow: Web Push about the runners this browser follows in the race (this one is followed on
 * the way). The permission is asked only on this click; a refusal is said plainly. While on, a change of the
 * followed runners is sent to the server (followed.ts).
 */
export function NotifyButton(props: {
  raceId: number;
  runnerId: number;
  followed: ReadonlySet<number>;
  follow(runnerId: number): void;
}) {
  const { raceId, runnerId, followed, follow } = props;
  const [on, setOn] = useState(() => pushEnabled(raceId));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<PushProblem | null>(null);
  const idsKey = [...followed].join(',');
  // Unfollowing the last runner turns notifications off (followed.ts tells the server).
  useEffect(() => setOn(pushEnabled(raceId)), [raceId, idsKey]);

  const click = async () => {
    setBusy(true);
    setProblem(null);
    try {
      if (on) {
        await disablePush(raceId);
        setOn(false);
      } else {
        const ids = new Set(followed);
        ids.add(runnerId);
        await enablePush(raceId, [...ids].slice(0, 50));
        // Followed once notifications are on (the server already has this list).
        if (!followed.has(runnerId)) follow(runnerId);
        setOn(true);
      }
    } catch (err) {
      const p = err instanceof PushError ? err.problem : 'failed';
      if (p === 'failed') console.warn('Notifications could not be turned on:', err);
      setProblem(p);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className={on ? 'btn' : 'btn btn-secondary'}
        aria-pressed={on}
        disabled={busy}
        title={t('runner.notifyTitle')}
        data-testid="notify-me"
        onClick={() => void click()}
      >
        {on ? t('runner.notifying') : t('runner.notify')}
      </button>
      {problem && (
        <p className="runner-page__notice" role="alert" data-testid="notify-problem">
          {PROBLEM_TEXT[problem]()}
        </p>
      )}
    </>
  );
}
