import type { Language } from '../lib/language';

/**
 * The course map page's words per language (`/courses/{raceId}/map`). Numbers arrive formatted for the page's
 * locale ("1,234", "1 234").
 */
export interface CourseMapTexts {
  /** The page's title when the race has no name. */
  courseOf(raceId: number): string;
  stats(km: string, climb: string, descent: string): string;
  mapLabel(title: string): string;
  start: string;
  finish: string;
  legend: string;
  profileLabel(low: string, high: string): string;
  profileCaption(low: string, high: string, km: string): string;
  downloadGpx: string;
  downloadGeoJson: string;
}

export const COURSE_MAP_TEXTS: Record<Language, CourseMapTexts> = {
  en: {
    courseOf: (raceId) => `Course of race ${raceId}`,
    stats: (km, climb, descent) => `${km} km · ${climb} m climb · ${descent} m descent`,
    mapLabel: (title) => `Course map of ${title}`,
    start: 'Start',
    finish: 'Finish',
    legend: 'Green ring: start · black: finish · blue: waypoints. North is up.',
    profileLabel: (low, high) => `Elevation profile from ${low} m to ${high} m`,
    profileCaption: (low, high, km) => `Elevation ${low}–${high} m over ${km} km`,
    downloadGpx: 'Download GPX',
    downloadGeoJson: 'Download GeoJSON',
  },
  fr: {
    courseOf: (raceId) => `Parcours de la course ${raceId}`,
    stats: (km, climb, descent) => `${km} km · ${climb} m de montée · ${descent} m de descente`,
    mapLabel: (title) => `Carte du parcours de ${title}`,
    start: 'Départ',
    finish: 'Arrivée',
    legend: 'Anneau vert : départ · noir : arrivée · bleu : points de passage. Le nord est en haut.',
    profileLabel: (low, high) => `Profil d’altitude de ${low} m à ${high} m`,
    profileCaption: (low, high, km) => `Altitude ${low}–${high} m sur ${km} km`,
    downloadGpx: 'Télécharger le GPX',
    downloadGeoJson: 'Télécharger le GeoJSON',
  },
  es: {
    courseOf: (raceId) => `Recorrido de la carrera ${raceId}`,
    stats: (km, climb, descent) => `${km} km · ${climb} m de subida · ${descent} m de bajada`,
    mapLabel: (title) => `Mapa del recorrido de ${title}`,
    start: 'Salida',
    finish: 'Meta',
    legend: 'Anillo verde: salida · negro: meta · azul: puntos de paso. El norte está arriba.',
    profileLabel: (low, high) => `Perfil de altitud de ${low} m a ${high} m`,
    profileCaption: (low, high, km) => `Altitud ${low}–${high} m en ${km} km`,
    downloadGpx: 'Descargar GPX',
    downloadGeoJson: 'Descargar GeoJSON',
  },
  de: {
    courseOf: (raceId) => `Strecke von Rennen ${raceId}`,
    stats: (km, climb, descent) => `${km} km · ${climb} m Aufstieg · ${descent} m Abstieg`,
    mapLabel: (title) => `Streckenkarte von ${title}`,
    start: 'Start',
    finish: 'Ziel',
    legend: 'Grüner Ring: Start · schwarz: Ziel · blau: Wegpunkte. Norden ist oben.',
    profileLabel: (low, high) => `Höhenprofil von ${low} m bis ${high} m`,
    profileCaption: (low, high, km) => `Höhe ${low}–${high} m auf ${km} km`,
    downloadGpx: 'GPX herunterladen',
    downloadGeoJson: 'GeoJSON herunterladen',
  },
  it: {
    courseOf: (raceId) => `Percorso della gara ${raceId}`,
    stats: (km, climb, descent) => `${km} km · ${climb} m di salita · ${descent} m di discesa`,
    mapLabel: (title) => `Mappa del percorso di ${title}`,
    start: 'Partenza',
    finish: 'Arrivo',
    legend: 'Anello verde: partenza · nero: arrivo · blu: punti di passaggio. Il nord è in alto.',
    profileLabel: (low, high) => `Profilo altimetrico da ${low} m a ${high} m`,
    profileCaption: (low, high, km) => `Altitudine ${low}–${high} m su ${km} km`,
    downloadGpx: 'Scarica il GPX',
    downloadGeoJson: 'Scarica il GeoJSON',
  },
};
