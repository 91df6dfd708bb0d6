import { useId, useState } from 'react';
import { ModalDialog } from './modal-dialog';
import { useI18n } from '../i18n';

export interface SelectOption {
  value: string;
  label: string;
}

/**
 * A modal picker (native <dialog>: focus is trapped and Escape closes it). Confirm stays disabled until a choice
 * is made, so confirming can never send an empty selection.
 */
export function SelectDialog({
  title,
  label,
  options,
  emptyText,
  onConfirm,
  onClose,
}: {
  title: string;
  label: string;
  options: SelectOption[] | undefined;
  emptyText: string;
  onConfirm(value: string): void;
  onClose(): void;
}) {
  const [value, setValue] = useState('');
  const { t } = useI18n();
  const id = useId();
  return (
    <ModalDialog title={title} onClose={onClose} onSubmit={() => value && onConfirm(value)}>
      {options === undefined ? (
        <p>{t('common.loading')}</p>
      ) : options.length === 0 ? (
        <p className="muted">{emptyText}</p>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-select`}>{label}</label>
          <select id={`${id}-select`} value={value} onChange={(e) => setValue(e.target.value)} autoFocus>
            <option value="">{t('common.choose')}</option>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={!value}>
          {t('common.confirm')}
        </button>
      </div>
    </ModalDialog>
  );
}
