import type { NamespaceCatalogue } from '../resources';

/** La fenêtre de balise d’un coureur en français (mêmes clés que tracker/en.ts). */
const tracker: NamespaceCatalogue<'tracker'> = {
  check: 'Vérifier la balise',
  own: 'Balise du coureur',
  title: 'Balise : {{name}}',
  checking: 'Vérification…',
  lead: 'Associez la balise que le coureur apporte. Elle ne sert que pour cette course. Vérifiez-la ici avant le départ.',
  tracker: 'Balise',
  mapshareName: 'Nom MapShare',
  spotFeed: 'Flux SPOT',
  lastFix: 'Dernière position',
  battery: 'Batterie',
  feedRead: 'Flux lu',
  trackingKey: 'Clé de suivi pour l’application du téléphone : <0>{{key}}</0>',
  feedId: 'Identifiant du flux SPOT (de la page partagée du coureur)',
  mapsharePassword: 'Mot de passe MapShare (si la page en a un)',
  feedPassword: 'Mot de passe du flux (s’il y en a un)',
  confirmDetach: 'Retirer la balise de {{name}} ? Ses positions restent avec le coureur.',
  detach: 'Retirer',
  close: 'Fermer',
  checkAgain: 'Vérifier à nouveau',
  attach: 'Associer la balise',
  source: {
    mapshare: 'Garmin inReach (MapShare)',
    spot: 'SPOT (flux propre)',
    osmand: 'Téléphone : Traccar Client / OsmAnd',
    owntracks: 'Téléphone : OwnTracks',
    inreach: 'Garmin inReach (compte IPC de la course)',
    lorawan: 'LoRaWAN',
    meshtastic: 'Meshtastic',
  },
  hardware: {
    mapshare: 'Nom MapShare (share.garmin.com/nom)',
    spot: 'ESN (facultatif avec un identifiant de flux)',
    inreach: 'IMEI (15 chiffres)',
    lorawan: 'DevEUI (16 chiffres hexadécimaux)',
    meshtastic: 'Numéro de nœud',
  },
  pending: {
    lead: 'En attente de la preuve que cet appareil est celui du coureur : aucune position n’en est reçue ni affichée d’ici là.',
    code: 'Le coureur envoie depuis l’appareil lui-même un message texte contenant <0>{{code}}</0>, ou un administrateur l’approuve.',
    admin: 'Un administrateur l’approuve (cet appareil ne peut pas envoyer de message texte).',
  },
  age: {
    none: 'aucune position reçue',
    now: 'dernière position à l’instant',
    minutes: 'dernière position il y a {{min}} min',
    hours: 'dernière position il y a {{h}} h',
    hoursMinutes: 'dernière position il y a {{h}} h {{min}} min',
    days: 'dernière position il y a {{days}} jours',
  },
};

export default tracker;
