import type { Language } from '../lib/language';

/**
 * The text view's words per language (`/race/{id}/text`, its 404 and 503 pages). Plain strings are text; the
 * functions take parts already escaped or formatted (`html` parts may hold markup: a `<time>` element).
 */
export interface TextViewTexts {
  title(race: string): string;
  /** The line under the race's name: `newest` and `updated` are `<time>` elements. */
  meta(newest: string, updated: string): string;
  fullPage: string;
  searchLabel: string;
  search: string;
  showLeaderboard: string;
  /** `total`, `shown` are formatted numbers; `count` the raw total (for the plural); `search` is escaped. */
  matches(count: number, total: string, search: string, shown: string | null): string;
  top(shown: string, count: number, total: string): string;
  searchResults: string;
  leaderboard: string;
  noRunner: string;
  languages: string;
  /** Column headings, also the labels each value gets in the one-card-per-runner layout of a narrow screen. */
  rank: string;
  bib: string;
  name: string;
  status: string;
  distance: string;
  lastCheckpoint: string;
  lastUpdate: string;
  /** A value's label in the narrow layout ("Status: ", "État : "). */
  cardLabel(label: string): string;
  statuses: Record<'not-started' | 'racing' | 'finished' | 'stale' | 'off-course' | 'dnf', string>;
  finishedAt(time: string): string;
  unavailableTitle: string;
  unavailableHeading: string;
  unavailable(raceId: number, seconds: number): string;
  notFoundTitle: string;
  notFound(raceId: number): string;
  allRaces: string;
}

export const TEXT_VIEW_TEXTS: Record<Language, TextViewTexts> = {
  en: {
    title: (race) => `${race} · live results (text)`,
    meta: (newest, updated) =>
      `Live results, text only. Newest position: ${newest}. Page updated ${updated}; it reloads every minute.`,
    fullPage: 'Open the full race page (map)',
    searchLabel: 'Find a runner by bib or name',
    search: 'Search',
    showLeaderboard: 'Show the leaderboard',
    matches: (count, total, search, shown) =>
      `${total} runner${count === 1 ? '' : 's'} match “${search}”${shown ? `, the first ${shown} shown` : ''}.`,
    top: (shown, count, total) => `Top ${shown} of ${total} runner${count === 1 ? '' : 's'}.`,
    searchResults: 'Search results',
    leaderboard: 'Leaderboard',
    noRunner: 'No runner found.',
    languages: 'Language',
    rank: 'Rank',
    bib: 'Bib',
    name: 'Name',
    status: 'Status',
    distance: 'Distance',
    lastCheckpoint: 'Last checkpoint',
    lastUpdate: 'Last update',
    cardLabel: (label) => `${label}: `,
    statuses: {
      'not-started': 'Not started',
      racing: 'Racing',
      finished: 'Finished',
      stale: 'No recent signal',
      'off-course': 'Off course',
      dnf: 'DNF',
    },
    finishedAt: (time) => `Finished ${time}`,
    unavailableTitle: 'Results unavailable',
    unavailableHeading: 'Results unavailable for a moment',
    unavailable: (raceId, s) =>
      `The results of race ${raceId} cannot be read right now. This page tries again in ${s} seconds.`,
    notFoundTitle: 'Race not found',
    notFound: (raceId) => `Race ${raceId} does not exist or is not public.`,
    allRaces: 'See all races',
  },
  fr: {
    title: (race) => `${race} · résultats en direct (texte)`,
    meta: (newest, updated) =>
      `Résultats en direct, texte seul. Position la plus récente : ${newest}. Page mise à jour ${updated} ; elle se recharge chaque minute.`,
    fullPage: 'Ouvrir la page complète de la course (carte)',
    searchLabel: 'Trouver un coureur par dossard ou par nom',
    search: 'Rechercher',
    showLeaderboard: 'Afficher le classement',
    matches: (count, total, search, shown) =>
      `${total} coureur${count > 1 ? 's' : ''} pour « ${search} »${shown ? `, les ${shown} premiers affichés` : ''}.`,
    top: (shown, count, total) => `Les ${shown} premiers sur ${total} coureur${count > 1 ? 's' : ''}.`,
    searchResults: 'Résultats de la recherche',
    leaderboard: 'Classement',
    noRunner: 'Aucun coureur trouvé.',
    languages: 'Langue',
    rank: 'Rang',
    bib: 'Dossard',
    name: 'Nom',
    status: 'État',
    distance: 'Distance',
    lastCheckpoint: 'Dernier point de passage',
    lastUpdate: 'Dernière mise à jour',
    cardLabel: (label) => `${label} : `,
    statuses: {
      'not-started': 'Pas parti',
      racing: 'En course',
      finished: 'Arrivé',
      stale: 'Pas de signal récent',
      'off-course': 'Hors parcours',
      dnf: 'Abandon',
    },
    finishedAt: (time) => `Arrivé ${time}`,
    unavailableTitle: 'Résultats indisponibles',
    unavailableHeading: 'Résultats indisponibles pour un moment',
    unavailable: (raceId, s) =>
      `Les résultats de la course ${raceId} ne peuvent pas être lus pour l’instant. Cette page réessaie dans ${s} secondes.`,
    notFoundTitle: 'Course introuvable',
    notFound: (raceId) => `La course ${raceId} n’existe pas ou n’est pas publique.`,
    allRaces: 'Voir toutes les courses',
  },
  es: {
    title: (race) => `${race} · resultados en directo (texto)`,
    meta: (newest, updated) =>
      `Resultados en directo, solo texto. Posición más reciente: ${newest}. Página actualizada ${updated}; se recarga cada minuto.`,
    fullPage: 'Abrir la página completa de la carrera (mapa)',
    searchLabel: 'Buscar un corredor por dorsal o nombre',
    search: 'Buscar',
    showLeaderboard: 'Mostrar la clasificación',
    matches: (count, total, search, shown) =>
      `${total} corredor${count === 1 ? '' : 'es'} para «${search}»${shown ? `, se muestran los ${shown} primeros` : ''}.`,
    top: (shown, count, total) => `Los ${shown} primeros de ${total} corredor${count === 1 ? '' : 'es'}.`,
    searchResults: 'Resultados de la búsqueda',
    leaderboard: 'Clasificación',
    noRunner: 'No se ha encontrado ningún corredor.',
    languages: 'Idioma',
    rank: 'Puesto',
    bib: 'Dorsal',
    name: 'Nombre',
    status: 'Estado',
    distance: 'Distancia',
    lastCheckpoint: 'Último punto de paso',
    lastUpdate: 'Última actualización',
    cardLabel: (label) => `${label}: `,
    statuses: {
      'not-started': 'Sin salir',
      racing: 'En carrera',
      finished: 'En meta',
      stale: 'Sin señal reciente',
      'off-course': 'Fuera del recorrido',
      dnf: 'Abandono',
    },
    finishedAt: (time) => `En meta ${time}`,
    unavailableTitle: 'Resultados no disponibles',
    unavailableHeading: 'Resultados no disponibles por un momento',
    unavailable: (raceId, s) =>
      `Los resultados de la carrera ${raceId} no se pueden leer ahora. Esta página lo vuelve a intentar en ${s} segundos.`,
    notFoundTitle: 'Carrera no encontrada',
    notFound: (raceId) => `La carrera ${raceId} no existe o no es pública.`,
    allRaces: 'Ver todas las carreras',
  },
  de: {
    title: (race) => `${race} · Live-Ergebnisse (Text)`,
    meta: (newest, updated) =>
      `Live-Ergebnisse, nur Text. Neueste Position: ${newest}. Seite aktualisiert ${updated}; sie lädt jede Minute neu.`,
    fullPage: 'Die ganze Rennseite öffnen (Karte)',
    searchLabel: 'Teilnehmende nach Startnummer oder Name suchen',
    search: 'Suchen',
    showLeaderboard: 'Rangliste zeigen',
    matches: (count, total, search, shown) =>
      `${total} Teilnehmende für „${search}“${shown ? `, die ersten ${shown} gezeigt` : ''}.`,
    top: (shown, _count, total) => `Die ersten ${shown} von ${total} Teilnehmenden.`,
    searchResults: 'Suchergebnisse',
    leaderboard: 'Rangliste',
    noRunner: 'Niemand gefunden.',
    languages: 'Sprache',
    rank: 'Platz',
    bib: 'Startnr.',
    name: 'Name',
    status: 'Status',
    distance: 'Distanz',
    lastCheckpoint: 'Letzter Kontrollpunkt',
    lastUpdate: 'Letzte Meldung',
    cardLabel: (label) => `${label}: `,
    statuses: {
      'not-started': 'Nicht gestartet',
      racing: 'Im Rennen',
      finished: 'Im Ziel',
      stale: 'Kein aktuelles Signal',
      'off-course': 'Abseits der Strecke',
      dnf: 'Aufgegeben',
    },
    finishedAt: (time) => `Im Ziel ${time}`,
    unavailableTitle: 'Ergebnisse nicht verfügbar',
    unavailableHeading: 'Ergebnisse kurz nicht verfügbar',
    unavailable: (raceId, s) =>
      `Die Ergebnisse von Rennen ${raceId} können gerade nicht gelesen werden. Diese Seite versucht es in ${s} Sekunden erneut.`,
    notFoundTitle: 'Rennen nicht gefunden',
    notFound: (raceId) => `Rennen ${raceId} gibt es nicht, oder es ist nicht öffentlich.`,
    allRaces: 'Alle Rennen ansehen',
  },
  it: {
    title: (race) => `${race} · risultati in diretta (testo)`,
    meta: (newest, updated) =>
      `Risultati in diretta, solo testo. Posizione più recente: ${newest}. Pagina aggiornata ${updated}; si ricarica ogni minuto.`,
    fullPage: 'Apri la pagina completa della gara (mappa)',
    searchLabel: 'Trova un concorrente per pettorale o nome',
    search: 'Cerca',
    showLeaderboard: 'Mostra la classifica',
    matches: (count, total, search, shown) =>
      `${total} concorrent${count === 1 ? 'e' : 'i'} per «${search}»${shown ? `, mostrati i primi ${shown}` : ''}.`,
    top: (shown, count, total) => `I primi ${shown} su ${total} concorrent${count === 1 ? 'e' : 'i'}.`,
    searchResults: 'Risultati della ricerca',
    leaderboard: 'Classifica',
    noRunner: 'Nessun concorrente trovato.',
    languages: 'Lingua',
    rank: 'Pos.',
    bib: 'Pettorale',
    name: 'Nome',
    status: 'Stato',
    distance: 'Distanza',
    lastCheckpoint: 'Ultimo punto di passaggio',
    lastUpdate: 'Ultimo aggiornamento',
    cardLabel: (label) => `${label}: `,
    statuses: {
      'not-started': 'Non partito',
      racing: 'In gara',
      finished: 'Arrivato',
      stale: 'Nessun segnale recente',
      'off-course': 'Fuori percorso',
      dnf: 'Ritirato',
    },
    finishedAt: (time) => `Arrivato ${time}`,
    unavailableTitle: 'Risultati non disponibili',
    unavailableHeading: 'Risultati non disponibili per un momento',
    unavailable: (raceId, s) =>
      `I risultati della gara ${raceId} non si possono leggere ora. Questa pagina riprova tra ${s} secondi.`,
    notFoundTitle: 'Gara non trovata',
    notFound: (raceId) => `La gara ${raceId} non esiste o non è pubblica.`,
    allRaces: 'Vedi tutte le gare',
  },
};

export function textViewTexts(language: Language): TextViewTexts {
  return TEXT_VIEW_TEXTS[language];
}
