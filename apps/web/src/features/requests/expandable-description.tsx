import { useLayoutEffect, useRef, useState } from 'react';
import { useI18n } from '../../i18n';

/**
 * A race description cut to two lines, with a button to read the whole of it when it is longer (the admin must not
 * approve blind). The button appears only when the text is actually cut, measured after layout and again when the
 * card changes width.
 */
export function ExpandableDescription({ text, id }: { text: string; id: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const [expanded, setExpanded] = useState(false);
  const { t } = useI18n();
  const [clamped, setClamped] = useState(false);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || expanded) return;
    const measure = () => setClamped(el.scrollHeight > el.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [text, expanded]);

  return (
    <>
      <p
        ref={ref}
        id={id}
        className={`race-card-desc${expanded ? ' race-card-desc--expanded' : ''}`}
        data-testid="request-description"
      >
        {text}
      </p>
      {clamped || expanded ? (
        <button
          type="button"
          className="link-button"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={() => setExpanded((v) => !v)}
        >
          {expanded ? t('requests.showLess') : t('requests.readMore')}
        </button>
      ) : null}
    </>
  );
}
