import { createBrowserRouter } from 'react-router';
import { Layout } from './layout';
import { ErrorScreen } from './error-screen';
import { RequireAdmin, RequireSignedIn } from './guards';
import { paths, routePatterns } from '../lib/paths';
import { HomePage } from '../features/home/home-page';
import { RacesPage } from '../features/races/races-page';
import { MyRacesPage } from '../features/races/my-races-page';
import { RaceRequestsPage } from '../features/requests/race-requests-page';
import { PrivacyPage } from '../features/legal/privacy-page';
import { TermsPage } from '../features/legal/terms-page';
import { NotFoundPage } from './not-found';
import { RaceDetailPage } from './routes/race-detail';
import { DevicesRoute } from './routes/devices';
import { RaceHqRoute } from './routes/race-hq';
import { RaceRunnerRoute } from './routes/race-runner';

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
            { path: routePatterns.race, element: <RaceDetailPage unapproved={false} /> },
            { path: routePatterns.raceRunner, element: <RaceRunnerRoute /> },
            { path: paths.privacy, element: <PrivacyPage /> },
            { path: paths.terms, element: <TermsPage /> },
            {
              element: <RequireSignedIn />,
              children: [
                { path: routePatterns.unapprovedRace, element: <RaceDetailPage unapproved /> },
                { path: routePatterns.raceHq, element: <RaceHqRoute /> },
                { path: paths.myRaces, element: <MyRacesPage /> },
              ],
            },
            {
              element: <RequireAdmin />,
              children: [
                { path: paths.raceRequests, element: <RaceRequestsPage /> },
                { path: paths.devices, element: <DevicesRoute /> },
              ],
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ]);
}
