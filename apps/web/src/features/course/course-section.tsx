import { useId, useRef, useState } from 'react';
import type { Course } from '@racebeacon/domain/entities';
import { formatLength, formatHeight } from '../../i18n/format';
import { ALERT, CONFIRM, confirmed } from '../../lib/confirm';
import { courseApi } from './api';
import { failureMessage, FormError } from '../../components/form-error';
import { inLanguage, useI18n } from '../../i18n';

/** The course: a map link with length and climb; the owner uploads a GPX file or deletes the course. */
export function CourseSection({
  raceId,
  course,
  canManage,
  onChanged,
}: {
  raceId: number;
  course: Course | null;
  canManage: boolean;
  onChanged(): Promise<void>;
}) {
  const fileRef = useRef<HTMLInputElement>(null);
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const { t } = useI18n();

  async function upload() {
    setError(null);
    const file = fileRef.current?.files?.[0];
    if (!file) {
      window.alert(ALERT.gpxFile);
      return;
    }
    try {
      await courseApi.upload(raceId, file);
    } catch (err) {
      // Keep the chosen file so the director sees which one was refused.
      setError(failureMessage(err));
      return;
    }
    if (fileRef.current) fileRef.current.value = '';
    await onChanged();
  }

  async function remove() {
    if (!course || !confirmed(CONFIRM.deleteCourse)) return;
    setError(null);
    await courseApi.remove(raceId, course.CourseId).catch((err: unknown) => setError(failureMessage(err)));
    await onChanged();
  }

  return (
    <section className="card course-card" aria-labelledby={`${id}-title`} data-testid="course-section">
      <h2 id={`${id}-title`}>{t('course.title')}</h2>
      {course ? (
        <>
          {course.Name && <p className="course-name">{course.Name}</p>}
          <dl className="stats">
            <div>
              <dt>{t('course.length')}</dt>
              <dd data-testid="course-length">{formatLength(course.LengthM)}</dd>
            </div>
            <div>
              <dt>{t('course.climb')}</dt>
              <dd data-testid="course-climb">{formatHeight(course.ClimbM)}</dd>
            </div>
            {course.Waypoints?.length > 0 && (
              <div>
                <dt>{t('course.checkpoints')}</dt>
                <dd>{course.Waypoints.length}</dd>
              </div>
            )}
          </dl>
          <p className="course-links">
            <a
              href={inLanguage(course.MapUrl)}
              target="_blank"
              rel="noopener noreferrer"
              className="btn btn-secondary"
            >
              {t('course.viewMap')}
              <span className="visually-hidden">{t('course.newTab')}</span>
            </a>
            {course.GpxUrl && (
              <a href={course.GpxUrl} className="link-muted" download>
                {t('course.downloadGpx')}
              </a>
            )}
          </p>
          {canManage && (
            <div className="card-actions">
              <button type="button" className="btn btn-danger btn-small" onClick={() => void remove()}>
                {t('course.delete')}
              </button>
            </div>
          )}
        </>
      ) : (
        <p className="muted">
          {t('course.none')}
          {canManage && ` ${t('course.chooseFile')}`}
        </p>
      )}
      {canManage && (
        // With a course in place the same form replaces it (a corrected GPX), without deleting it first.
        <form
          className="upload-form"
          aria-label={course ? t('course.replaceLabel') : t('course.uploadLabel')}
          onSubmit={(e) => {
            e.preventDefault();
            void upload();
          }}
        >
          <div className="field">
            <label htmlFor={`${id}-file`}>{course ? t('course.correctedFile') : t('course.gpxFile')}</label>
            <input id={`${id}-file`} ref={fileRef} type="file" name="file" accept=".gpx" />
          </div>
          <button type="submit" className={course ? 'btn' : 'btn btn-primary'}>
            {course ? t('course.replace') : t('course.upload')}
          </button>
        </form>
      )}
      <FormError message={error} />
    </section>
  );
}
