import { createBrowserRouter } from 'react-router';
import { Layout } from './layout';
import { ErrorScreen } from './error-screen';
import { RequireAdmin, RequireSignedIn } from './guards';
import { paths, routePatterns } from '../lib/paths';
import { HomePage } from '../features/home/home-page';
import { RacesPage } from '../features/races/races-page';
import { NotFoundPage } from './not-found';
import { RaceRunnerRoute } from './routes/race-runner';

/** The race detail screen as a lazy route, public (approved) or the director's unapproved race. */
function raceDetail(unapproved: boolean) {
  return async () => {
    const { RaceDetailPage } = await import('./routes/race-detail');
    return { Component: () => <RaceDetailPage unapproved={unapproved} /> };
  };
}

export function createAppRouter() {
  return createBrowserRouter([
    // The aid-station volunteer's page: no sign-in, no site header (a phone at a table), its own lazy chunk.
    {
      path: routePatterns.checkin,
      errorElement: <ErrorScreen />,
      lazy: async () => ({ Component: (await import('../features/checkin')).CheckinPage }),
    },
    // The embeddable live views (an <iframe> on a race's own site): no site layout, their own lazy chunk.
    {
      path: routePatterns.embedRace,
      errorElement: <ErrorScreen />,
      lazy: async () => ({ Component: (await import('./routes/embed-race')).EmbedRaceRoute }),
    },
    {
      element: <Layout />,
      errorElement: <ErrorScreen />,
      children: [
        {
          errorElement: <ErrorScreen />,
          children: [
            { path: paths.home, element: <HomePage /> },
            { path: paths.races, element: <RacesPage /> },
            // The race screen (with the director's sections) and the legal pages are lazy chunks: the first screen
            // stays within its JavaScript budget (vite.config.ts).
            { path: routePatterns.race, lazy: raceDetail(false) },
            { path: routePatterns.raceRunner, element: <RaceRunnerRoute /> },
            {
              path: paths.privacy,
              lazy: async () => {
                const page = await import('../features/legal/privacy-page');
                await page.legalTextsReady; // its texts in the viewer's language before it shows
                return { Component: page.PrivacyPage };
              },
            },
            {
              path: paths.terms,
              lazy: async () => {
                const page = await import('../features/legal/terms-page');
                await page.legalTextsReady;
                return { Component: page.TermsPage };
              },
            },
            {
              element: <RequireSignedIn />,
              children: [
                { path: routePatterns.unapprovedRace, lazy: raceDetail(true) },
                // Signed-in and admin screens are lazy chunks: a spectator's first visit does not download them.
                {
                  path: routePatterns.raceHq,
                  lazy: async () => ({ Component: (await import('./routes/race-hq')).RaceHqRoute }),
                },
                {
                  path: paths.myRaces,
                  lazy: async () => ({
                    Component: (await import('../features/races/my-races-page')).MyRacesPage,
                  }),
                },
              ],
            },
            {
              element: <RequireAdmin />,
              children: [
                {
                  path: paths.raceRequests,
                  lazy: async () => ({
                    Component: (await import('../features/requests/race-requests-page')).RaceRequestsPage,
                  }),
                },
                {
                  path: paths.devices,
                  lazy: async () => ({ Component: (await import('./routes/devices')).DevicesRoute }),
                },
              ],
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ]);
}
