import { useId, useState } from 'react';
import { failureMessage, FormError } from '../../components/form-error';
import { formatDateTime } from '../../lib/format';
import type { Alert } from './alert-types';
import { contactParts } from './contact-links';
import { ago, alertSubject, KIND_LABEL, STATE_LABEL } from './hq-store';
import { t, useI18n } from '../../i18n';
import { alertDetail } from '../../i18n/alert-detail';

/** The runner's phone and emergency contact, from the director's runner read. */
export interface RunnerContact {
  Phone: string | null;
  EmergencyContact: string | null;
}

export interface AlertActions {
  acknowledge(alert: Alert, note: string): Promise<void>;
  resolve(alert: Alert, note: string): Promise<void>;
}

/** One alert: who, what, when, where; "Show on map"; acknowledge or resolve with a note. */
export function AlertCard({
  alert,
  battery,
  lastFix,
  now,
  actions,
  onShowOnMap,
  contact,
}: {
  alert: Alert;
  /** Who to call about the runner, when known. */
  contact?: RunnerContact | null;
  /** The runner's newest battery reading from the live data, when known. */
  battery: string | null;
  /** The runner's newest fix time from the live data (ISO), when newer than the alert's. */
  lastFix: string | null;
  now: number;
  actions: AlertActions;
  onShowOnMap?: (alert: Alert) => void;
}) {
  useI18n();
  const [acting, setActing] = useState<'acknowledge' | 'resolve' | null>(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const noteId = useId();
  const titleId = useId();
  const seen = newest(alert.LastSeenAt, lastFix);
  const located = alert.Latitude !== null && alert.Longitude !== null;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!acting) return;
    setBusy(true);
    setError(null);
    try {
      await actions[acting](alert, note);
      setActing(null);
      setNote('');
    } catch (err) {
      setError(failureMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li
      className={`hq-alert hq-alert--${alert.Kind} hq-alert--${alert.State}`}
      data-alert-id={alert.AlertId}
      data-kind={alert.Kind}
      data-state={alert.State}
    >
      <article aria-labelledby={titleId}>
        <div className="hq-alert__head">
          <span className={`hq-kind hq-kind--${alert.Kind}`}>{KIND_LABEL[alert.Kind]}</span>
          <h3 id={titleId} className="hq-alert__who">
            {alertSubject(alert)}
          </h3>
          {alert.RunnerId === null && alert.RaceId !== null ? (
            // A tracker of the race nobody held at the alert's time: the runner is named once a hand-over covers it.
            <span className="hq-not-handed" data-testid="alert-not-handed">
              {t('hq.notHanded')}
            </span>
          ) : null}
          <span className={`hq-state hq-state--${alert.State}`}>{STATE_LABEL[alert.State]}</span>
        </div>
        {alert.Message ? <p className="hq-alert__message">“{alertDetail(alert)}”</p> : null}
        <dl className="hq-facts">
          <div>
            <dt>{t('hq.log.raised')}</dt>
            <dd>
              <time dateTime={alert.RaisedAt}>{formatDateTime(alert.RaisedAt)}</time>{' '}
              <span className="muted">({ago(alert.RaisedAt, now)})</span>
            </dd>
          </div>
          <div>
            <dt>{t('runner.lastFix')}</dt>
            <dd>{seen ? `${formatDateTime(seen)} (${ago(seen, now)})` : t('hq.noneYet')}</dd>
          </div>
          <div>
            <dt>{t('runners.device')}</dt>
            <dd>
              {alert.DeviceName ?? (alert.DeviceId !== null ? t('hq.device', { id: alert.DeviceId }) : '-')}
            </dd>
          </div>
          {contact?.Phone ? (
            <div className="hq-facts__wide">
              <dt>{t('hq.phone')}</dt>
              <dd className="hq-contact" data-testid="runner-phone">
                <ContactText text={contact.Phone} />
              </dd>
            </div>
          ) : null}
          {contact?.EmergencyContact ? (
            <div className="hq-facts__wide">
              <dt>{t('hq.emergencyContact')}</dt>
              <dd className="hq-contact" data-testid="emergency-contact">
                <ContactText text={contact.EmergencyContact} />
              </dd>
            </div>
          ) : null}
          {battery ? (
            <div>
              <dt>{t('runner.battery')}</dt>
              <dd>{battery}</dd>
            </div>
          ) : null}
          {alert.AcknowledgedAt ? (
            <div>
              <dt>{t('hq.state.acknowledged')}</dt>
              <dd>
                {alert.AcknowledgedBy ?? t('hq.someone')}, {formatDateTime(alert.AcknowledgedAt)}
              </dd>
            </div>
          ) : null}
          {alert.ResolvedAt ? (
            <div>
              <dt>{t('hq.state.resolved')}</dt>
              <dd>
                {alert.ResolvedBy ?? t('hq.automatically')}, {formatDateTime(alert.ResolvedAt)}
              </dd>
            </div>
          ) : null}
          {alert.Note ? (
            <div className="hq-facts__wide">
              <dt>{t('hq.note')}</dt>
              <dd className="hq-note">{alert.Note}</dd>
            </div>
          ) : null}
        </dl>
        <div className="hq-alert__actions">
          {onShowOnMap ? (
            <button
              type="button"
              className="btn btn-small"
              disabled={!located}
              title={located ? undefined : t('hq.noPosition')}
              onClick={() => onShowOnMap(alert)}
            >
              {t('hq.showOnMap')}
            </button>
          ) : null}
          {alert.State === 'open' && acting === null ? (
            <button
              type="button"
              className="btn btn-small btn-secondary"
              onClick={() => setActing('acknowledge')}
            >
              {t('hq.acknowledge')}
            </button>
          ) : null}
          {alert.State !== 'resolved' && acting === null ? (
            <button type="button" className="btn btn-small" onClick={() => setActing('resolve')}>
              {t('hq.resolve')}
            </button>
          ) : null}
        </div>
        {acting ? (
          <form
            className="hq-action-form"
            onSubmit={submit}
            aria-label={`${acting === 'acknowledge' ? t('hq.acknowledge') : t('hq.resolve')} ${alertSubject(alert)}`}
          >
            <div className="field">
              <label htmlFor={noteId}>
                {acting === 'resolve' ? t('hq.noteResolve') : t('hq.noteAcknowledge')}
              </label>
              <textarea
                id={noteId}
                rows={2}
                maxLength={1000}
                value={note}
                onChange={(e) => setNote(e.target.value)}
                // The form was opened by this very click: the note is where the director types next.
                autoFocus
              />
            </div>
            <div className="form-actions">
              <button type="submit" className="btn btn-primary btn-small" disabled={busy}>
                {acting === 'acknowledge' ? t('hq.confirmAcknowledge') : t('hq.confirmResolve')}
              </button>
              <button
                type="button"
                className="btn btn-small btn-ghost"
                onClick={() => {
                  setActing(null);
                  setError(null);
                }}
              >
                {t('common.cancel')}
              </button>
            </div>
            <FormError message={error} />
          </form>
        ) : (
          <FormError message={error} />
        )}
      </article>
    </li>
  );
}

/** Contact text with its phone numbers as `tel:` links. */
function ContactText({ text }: { text: string }) {
  return (
    <>
      {contactParts(text).map((p, i) =>
        p.href ? (
          <a key={i} href={p.href}>
            {p.text}
          </a>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}

function newest(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
