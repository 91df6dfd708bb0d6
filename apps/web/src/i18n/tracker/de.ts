import type { NamespaceCatalogue } from '../resources';

/** Der Tracker-Dialog einer teilnehmenden Person auf Deutsch (dieselben Schlüssel wie tracker/en.ts). */
const tracker: NamespaceCatalogue<'tracker'> = {
  check: 'Tracker prüfen',
  own: 'Eigener Tracker',
  title: 'Tracker: {{name}}',
  checking: 'Wird geprüft…',
  lead: 'Verbinde den Tracker, den die teilnehmende Person mitbringt. Er gilt nur für dieses Rennen. Prüfe ihn hier vor dem Start.',
  tracker: 'Tracker',
  mapshareName: 'MapShare-Name',
  spotFeed: 'SPOT-Feed',
  lastFix: 'Letzte Position',
  battery: 'Akku',
  feedRead: 'Feed gelesen',
  trackingKey: 'Tracking-Schlüssel für die Handy-App: <0>{{key}}</0>',
  feedId: 'SPOT-Feed-ID (von der geteilten Seite der teilnehmenden Person)',
  mapsharePassword: 'MapShare-Passwort (falls die Seite eines hat)',
  feedPassword: 'Feed-Passwort (falls vorhanden)',
  confirmDetach: 'Den Tracker von {{name}} trennen? Die Positionen bleiben bei der teilnehmenden Person.',
  detach: 'Trennen',
  close: 'Schließen',
  checkAgain: 'Erneut prüfen',
  attach: 'Tracker verbinden',
  source: {
    mapshare: 'Garmin inReach (MapShare)',
    spot: 'SPOT (eigener Feed)',
    osmand: 'Handy: Traccar Client / OsmAnd',
    owntracks: 'Handy: OwnTracks',
    inreach: 'Garmin inReach (IPC-Konto des Rennens)',
    lorawan: 'LoRaWAN',
    meshtastic: 'Meshtastic',
  },
  hardware: {
    mapshare: 'MapShare-Name (share.garmin.com/name)',
    spot: 'ESN (optional mit einer Feed-ID)',
    inreach: 'IMEI (15 Ziffern)',
    lorawan: 'DevEUI (16 Hex-Ziffern)',
    meshtastic: 'Knotennummer',
  },
  pending: {
    lead: 'Wartet auf den Nachweis, dass dieses Gerät der teilnehmenden Person gehört: bis dahin wird keine Position empfangen oder angezeigt.',
    code: 'Die Person sendet vom Gerät selbst eine Textnachricht mit <0>{{code}}</0>, oder ein Administrator gibt es frei.',
    admin: 'Ein Administrator gibt es frei (dieses Gerät kann keine Textnachricht senden).',
  },
  age: {
    none: 'noch keine Position empfangen',
    now: 'letzte Position gerade eben',
    minutes: 'letzte Position vor {{min}} Min.',
    hours: 'letzte Position vor {{h}} Std.',
    hoursMinutes: 'letzte Position vor {{h}} Std. {{min}} Min.',
    days: 'letzte Position vor {{days}} Tagen',
  },
};

export default tracker;
