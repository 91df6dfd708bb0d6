import type { NamespaceCatalogue } from '../resources';

/** La finestra del tracker di un concorrente in italiano (le stesse chiavi di tracker/en.ts). */
const tracker: NamespaceCatalogue<'tracker'> = {
  check: 'Verifica tracker',
  own: 'Tracker proprio',
  title: 'Tracker: {{name}}',
  checking: 'Verifica in corso…',
  lead: 'Collega il tracker che porta il concorrente. Vale solo per questa gara. Verificalo qui prima della partenza.',
  tracker: 'Tracker',
  mapshareName: 'Nome MapShare',
  spotFeed: 'Feed SPOT',
  lastFix: 'Ultima posizione',
  battery: 'Batteria',
  feedRead: 'Feed letto',
  trackingKey: 'Chiave di tracciamento per l’app del telefono: <0>{{key}}</0>',
  feedId: 'Id del feed SPOT (dalla pagina condivisa del concorrente)',
  mapsharePassword: 'Password MapShare (se la pagina ne ha una)',
  feedPassword: 'Password del feed (se presente)',
  confirmDetach: 'Scollegare il tracker di {{name}}? Le sue posizioni restano al concorrente.',
  detach: 'Scollega',
  close: 'Chiudi',
  checkAgain: 'Verifica di nuovo',
  attach: 'Collega tracker',
  source: {
    mapshare: 'Garmin inReach (MapShare)',
    spot: 'SPOT (feed proprio)',
    osmand: 'Telefono: Traccar Client / OsmAnd',
    owntracks: 'Telefono: OwnTracks',
    inreach: 'Garmin inReach (account IPC della gara)',
    lorawan: 'LoRaWAN',
    meshtastic: 'Meshtastic',
  },
  hardware: {
    mapshare: 'Nome MapShare (share.garmin.com/nome)',
    spot: 'ESN (facoltativo con un id di feed)',
    inreach: 'IMEI (15 cifre)',
    lorawan: 'DevEUI (16 cifre esadecimali)',
    meshtastic: 'Numero del nodo',
  },
  pending: {
    lead: 'In attesa della prova che questo dispositivo è del concorrente: fino ad allora nessuna sua posizione viene ricevuta o mostrata.',
    code: 'Il concorrente invia dal dispositivo stesso un messaggio di testo con <0>{{code}}</0>, oppure un amministratore lo approva.',
    admin: 'Lo approva un amministratore (questo dispositivo non può inviare messaggi di testo).',
  },
  age: {
    none: 'nessuna posizione ancora ricevuta',
    now: 'ultima posizione proprio ora',
    minutes: 'ultima posizione {{min}} min fa',
    hours: 'ultima posizione {{h}} h fa',
    hoursMinutes: 'ultima posizione {{h}} h {{min}} min fa',
    days: 'ultima posizione {{days}} giorni fa',
  },
};

export default tracker;
