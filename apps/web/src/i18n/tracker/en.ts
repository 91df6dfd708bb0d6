/**
 * The director's runner tracker dialog in English (namespace `tracker`): a lazy catalogue, it comes with the race
 * page's chunk, not with the first screen.
 */
const tracker = {
  check: 'Tracker check',
  own: 'Own tracker',
  title: 'Tracker: {{name}}',
  checking: 'Checking…',
  lead: 'Attach the tracker the runner brings. It is used in this race only. Check it here before the start.',
  tracker: 'Tracker',
  mapshareName: 'MapShare name',
  spotFeed: 'SPOT feed',
  lastFix: 'Last fix',
  battery: 'Battery',
  feedRead: 'Feed read',
  trackingKey: 'Tracking key for the phone app: <0>{{key}}</0>',
  feedId: "SPOT feed id (from the runner's shared page)",
  mapsharePassword: 'MapShare password (if the page has one)',
  feedPassword: 'Feed password (if any)',
  confirmDetach: "Detach {{name}}'s tracker? Its fixes stay with the runner.",
  detach: 'Detach',
  close: 'Close',
  checkAgain: 'Check again',
  attach: 'Attach tracker',
  source: {
    mapshare: 'Garmin inReach (MapShare)',
    spot: 'SPOT (own feed)',
    osmand: 'Phone: Traccar Client / OsmAnd',
    owntracks: 'Phone: OwnTracks',
    inreach: 'Garmin inReach (race IPC account)',
    lorawan: 'LoRaWAN',
    meshtastic: 'Meshtastic',
  },
  hardware: {
    mapshare: 'MapShare name (share.garmin.com/name)',
    spot: 'ESN (optional with a feed id)',
    inreach: 'IMEI (15 digits)',
    lorawan: 'DevEUI (16 hex digits)',
    meshtastic: 'Node number',
  },
  pending: {
    lead: "Waiting for proof that this device is the runner's: no position from it is received or shown until then.",
    code: 'Have the runner send a text message from the device itself containing <0>{{code}}</0>, or ask an administrator to approve it.',
    admin: 'An administrator approves it (this device cannot send a text message).',
  },
  age: {
    none: 'no fix received yet',
    now: 'last fix just now',
    minutes: 'last fix {{min}} min ago',
    hours: 'last fix {{h}} h ago',
    hoursMinutes: 'last fix {{h}} h {{min}} min ago',
    days: 'last fix {{days}} days ago',
  },
};

export default tracker;
