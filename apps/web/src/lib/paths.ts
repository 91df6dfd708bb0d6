/** Every route path of the app, in one place: the router and every link use these, so a path changes in one line. */
export const paths = {
  home: '/',
  races: '/races',
  race: (id: number | string) => `/race/${id}`,
  unapprovedRace: (id: number | string) => `/race/unapproved/${id}`,
  raceHq: (id: number | string) => `/race/${id}/hq`,
  /** A runner's page (shareable): status, splits, track, Follow. */
  raceRunner: (id: number | string, bib: string) => `/race/${id}/runner/${encodeURIComponent(bib)}`,
  myRaces: '/my-races',
  raceRequests: '/race-requests',
  devices: '/add-device',
  privacy: '/privacy-policy',
  terms: '/terms-of-service',
  checkin: (token: string) => `/checkin/${token}`,
  /** The page for an <iframe> on a race's own site: view map, leaderboard, or runner with a bib. */
  embedRace: (id: number | string, view = 'map', bib?: string) =>
    `/embed/race/${id}?view=${view}${bib ? `&bib=${encodeURIComponent(bib)}` : ''}`,
  /** The server-rendered text view (no map, no script). */
  raceText: (id: number | string) => `/race/${id}/text`,
} as const;

export const routePatterns = {
  race: '/race/:raceId',
  unapprovedRace: '/race/unapproved/:raceId',
  raceHq: '/race/:raceId/hq',
  raceRunner: '/race/:raceId/runner/:bib',
  checkin: '/checkin/:token',
  embedRace: '/embed/race/:raceId',
} as const;
