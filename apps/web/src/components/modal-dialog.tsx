import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal form on the native <dialog>: opened as modal on mount (focus is trapped, Escape closes it), closed on
 * unmount. Submitting calls onSubmit; Escape and the caller's Cancel button call onClose.
 */
export function ModalDialog({
  title,
  onSubmit,
  onClose,
  children,
}: {
  title: ReactNode;
  onSubmit(): void;
  onClose(): void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        {children}
      </form>
    </dialog>
  );
}
