import type { NamespaceCatalogue } from '../resources';

/** El diálogo del localizador de un corredor en español (las mismas claves que tracker/en.ts). */
const tracker: NamespaceCatalogue<'tracker'> = {
  check: 'Comprobar localizador',
  own: 'Localizador propio',
  title: 'Localizador: {{name}}',
  checking: 'Comprobando…',
  lead: 'Asocia el localizador que trae el corredor. Solo se usa en esta carrera. Compruébalo aquí antes de la salida.',
  tracker: 'Localizador',
  mapshareName: 'Nombre de MapShare',
  spotFeed: 'Feed de SPOT',
  lastFix: 'Última posición',
  battery: 'Batería',
  feedRead: 'Feed leído',
  trackingKey: 'Clave de seguimiento para la app del teléfono: <0>{{key}}</0>',
  feedId: 'Id del feed de SPOT (de la página compartida del corredor)',
  mapsharePassword: 'Contraseña de MapShare (si la página tiene una)',
  feedPassword: 'Contraseña del feed (si la hay)',
  confirmDetach: '¿Quitar el localizador de {{name}}? Sus posiciones se quedan con el corredor.',
  detach: 'Quitar',
  close: 'Cerrar',
  checkAgain: 'Comprobar de nuevo',
  attach: 'Asociar localizador',
  source: {
    mapshare: 'Garmin inReach (MapShare)',
    spot: 'SPOT (feed propio)',
    osmand: 'Teléfono: Traccar Client / OsmAnd',
    owntracks: 'Teléfono: OwnTracks',
    inreach: 'Garmin inReach (cuenta IPC de la carrera)',
    lorawan: 'LoRaWAN',
    meshtastic: 'Meshtastic',
  },
  hardware: {
    mapshare: 'Nombre de MapShare (share.garmin.com/nombre)',
    spot: 'ESN (opcional con un id de feed)',
    inreach: 'IMEI (15 dígitos)',
    lorawan: 'DevEUI (16 dígitos hexadecimales)',
    meshtastic: 'Número de nodo',
  },
  pending: {
    lead: 'Esperando la prueba de que este dispositivo es del corredor: hasta entonces no se recibe ni se muestra ninguna posición suya.',
    code: 'El corredor envía desde el propio dispositivo un mensaje de texto con <0>{{code}}</0>, o un administrador lo aprueba.',
    admin: 'Un administrador lo aprueba (este dispositivo no puede enviar mensajes de texto).',
  },
  age: {
    none: 'aún no se ha recibido ninguna posición',
    now: 'última posición ahora mismo',
    minutes: 'última posición hace {{min}} min',
    hours: 'última posición hace {{h}} h',
    hoursMinutes: 'última posición hace {{h}} h {{min}} min',
    days: 'última posición hace {{days}} días',
  },
};

export default tracker;
