import { lazy, Suspense } from 'react';
import { useParams, useSearchParams } from 'react-router';
import type { Race } from '@racebeacon/domain/entities';
import { paths } from '../../lib/paths';
import { useDocumentTitle } from '../../lib/use-document-title';
import { useResource } from '../../lib/use-resource';
import { openRacesApi } from '../../features/races/api';
import type { EmbedView } from '../../features/live/live-embed';
import { t, useI18n } from '../../i18n';
import '../embed.css';

// The live view's map and leaderboard, in their own chunk (Leaflet loads after it, with the map).
const LiveEmbed = lazy(() =>
  import('../../features/live/live-embed').then((m) => ({ default: m.LiveEmbed })),
);

const VIEWS: readonly EmbedView[] = ['map', 'leaderboard', 'runner'];

/**
 * /embed/race/{raceId}?view=map|leaderboard|runner&bib=: the page a race's own website puts in an <iframe>. Outside
 * the site layout (no navigation); the server lets only EMBED_FRAME_ANCESTORS frame it (every other page refuses).
 */
export function EmbedRaceRoute() {
  const { raceId } = useParams();
  const [search] = useSearchParams();
  const id = Number(raceId);
  const asked = search.get('view') ?? 'map';
  const view: EmbedView = (VIEWS as readonly string[]).includes(asked) ? (asked as EmbedView) : 'map';
  const bib = search.get('bib')?.trim() || undefined;
  const race = useResource<Race>(async () => {
    if (!Number.isInteger(id) || id <= 0) throw { status: 404, error: 'not_found', message: 'No such race.' };
    return openRacesApi.get(id);
  }, [id]);
  useI18n();
  useDocumentTitle(race.data?.Name ?? t('embed.liveRace'));
  const fullPageUrl = new URL(paths.race(Number.isInteger(id) ? id : 0), window.location.origin).href;

  if (!race.data) {
    return (
      <main className="embed">
        {race.error ? (
          <p className="embed__note">
            {t('embed.notFound')}{' '}
            <a href={new URL(paths.races, window.location.origin).href} target="_blank" rel="noopener">
              {t('common.seeAllRaces')}
            </a>
          </p>
        ) : (
          <p className="embed__note" role="status">
            {t('common.loading')}
          </p>
        )}
      </main>
    );
  }
  return (
    <Suspense
      fallback={
        <main className="embed">
          <p className="embed__note" role="status">
            {t('live.loadingView')}
          </p>
        </main>
      }
    >
      <LiveEmbed race={race.data} view={view} bib={bib} fullPageUrl={fullPageUrl} />
    </Suspense>
  );
}
