import type { PushLocale } from '@racebeacon/domain';

/**
 * The notification texts per language (the subscription's Locale, the page's language). `who` is the runner as
 * the leaderboard names them; `km` is already formatted; `time` is the race time (h:mm:ss) or null without a race
 * clock.
 */
export interface PushTexts {
  who(name: string, bib: string | null): string;
  km(km: number): string;
  checkpoint(who: string, checkpoint: string, km: string, time: string | null): string;
  finished(who: string, time: string | null): string;
  dnf(who: string, km: string | null): string;
  noNewsTitle(who: string): string;
  noNewsBody(km: string | null, time: string | null): string;
}

const comma = (km: number) => km.toFixed(1).replace('.', ',');

export const PUSH_TEXTS: Record<PushLocale, PushTexts> = {
  en: {
    who: (name, bib) => (bib ? `${name} (bib ${bib})` : name),
    km: (km) => km.toFixed(1),
    checkpoint: (who, cp, km, time) =>
      `${who} passed ${cp} at km ${km}${time ? `, ${time} into the race` : ''}.`,
    finished: (who, time) => `${who} finished${time ? ` in ${time}` : ''}.`,
    dnf: (who, km) => `${who} did not finish (DNF)${km ? `, recorded at km ${km}` : ''}.`,
    noNewsTitle: (who) => `No news of ${who} for 1 hour`,
    noNewsBody: (km, time) =>
      `Last heard${km ? ` at km ${km}` : ''}${time ? `, ${time} into the race` : ''}. Satellite trackers are often ` +
      'silent in deep valleys and under thick forest; the silence alone does not mean anything is wrong.',
  },
  fr: {
    who: (name, bib) => (bib ? `${name} (dossard ${bib})` : name),
    km: comma,
    checkpoint: (who, cp, km, time) =>
      `${who} a franchi ${cp} au km ${km}${time ? `, après ${time} de course` : ''}.`,
    finished: (who, time) => `${who} a terminé${time ? ` en ${time}` : ''}.`,
    dnf: (who, km) => `${who} a abandonné (DNF)${km ? `, au km ${km}` : ''}.`,
    noNewsTitle: (who) => `Pas de nouvelles de ${who} depuis 1 heure`,
    noNewsBody: (km, time) =>
      `Dernier signal${km ? ` au km ${km}` : ''}${time ? `, après ${time} de course` : ''}. Les balises satellite ` +
      'restent souvent muettes au fond des vallées et sous une forêt dense ; ce silence seul ne signifie pas qu’il ' +
      'y a un problème.',
  },
  es: {
    who: (name, bib) => (bib ? `${name} (dorsal ${bib})` : name),
    km: comma,
    checkpoint: (who, cp, km, time) =>
      `${who} pasó por ${cp} en el km ${km}${time ? `, a ${time} de carrera` : ''}.`,
    finished: (who, time) => `${who} llegó a meta${time ? ` en ${time}` : ''}.`,
    dnf: (who, km) => `${who} abandonó (DNF)${km ? `, en el km ${km}` : ''}.`,
    noNewsTitle: (who) => `Sin noticias de ${who} desde hace 1 hora`,
    noNewsBody: (km, time) =>
      `Última señal${km ? ` en el km ${km}` : ''}${time ? `, a ${time} de carrera` : ''}. Los localizadores por ` +
      'satélite suelen quedar en silencio en valles profundos y bajo bosque espeso; el silencio por sí solo no ' +
      'significa que algo vaya mal.',
  },
  de: {
    who: (name, bib) => (bib ? `${name} (Startnr. ${bib})` : name),
    km: comma,
    checkpoint: (who, cp, km, time) =>
      `${who} hat ${cp} bei km ${km} passiert${time ? `, ${time} nach dem Start` : ''}.`,
    finished: (who, time) => `${who} ist im Ziel${time ? ` nach ${time}` : ''}.`,
    dnf: (who, km) => `${who} hat aufgegeben (DNF)${km ? `, bei km ${km}` : ''}.`,
    noNewsTitle: (who) => `Seit 1 Stunde keine Nachricht von ${who}`,
    noNewsBody: (km, time) =>
      `Zuletzt gehört${km ? ` bei km ${km}` : ''}${time ? `, ${time} nach dem Start` : ''}. Satelliten-Tracker ` +
      'schweigen in tiefen Tälern und unter dichtem Wald oft; die Stille allein bedeutet nicht, dass etwas ' +
      'passiert ist.',
  },
  it: {
    who: (name, bib) => (bib ? `${name} (pettorale ${bib})` : name),
    km: comma,
    checkpoint: (who, cp, km, time) =>
      `Passaggio di ${who} a ${cp} al km ${km}${time ? `, dopo ${time} di gara` : ''}.`,
    finished: (who, time) => `${who} ha concluso la gara${time ? ` in ${time}` : ''}.`,
    dnf: (who, km) => `Ritiro di ${who} (DNF)${km ? `, al km ${km}` : ''}.`,
    noNewsTitle: (who) => `Nessuna notizia di ${who} da 1 ora`,
    noNewsBody: (km, time) =>
      `Ultimo segnale${km ? ` al km ${km}` : ''}${time ? `, dopo ${time} di gara` : ''}. I localizzatori ` +
      'satellitari restano spesso muti nelle valli profonde e sotto i boschi fitti; il silenzio da solo non ' +
      'significa che ci sia un problema.',
  },
};

export function pushTexts(locale: string | null | undefined): PushTexts {
  return PUSH_TEXTS[(locale ?? 'en') as PushLocale] ?? PUSH_TEXTS.en;
}
