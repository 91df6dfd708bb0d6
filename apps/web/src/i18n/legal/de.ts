import type { NamespaceCatalogue } from '../resources';

/** Die Rechtsseiten auf Deutsch (dieselben Schlüssel wie legal/en.ts). */
const legal: NamespaceCatalogue<'legal'> = {
  effective: 'Gültig ab: {{date}}',
  contactTitle: 'Kontakt',
  contact: 'Fragen zu dieser Seite? Schreib uns an <0>{{email}}</0>.',
  privacy: {
    title: 'Datenschutzerklärung',
    intro:
      '{{product}} zeigt Rennen live: wo alle Teilnehmenden während eines Rennens auf der Strecke sind. Diese Erklärung sagt, was wir speichern, warum und wie lange.',
    collectTitle: 'Was wir erheben',
    directors:
      '<0>Veranstalter und Administratoren:</0> die Konto-Kennung, der Name und die E-Mail-Adresse vom Anmeldedienst sowie die Rennen, Strecken und Teilnehmenden, die du eingibst.',
    runners:
      '<0>Teilnehmende:</0> Name, Startnummer, Geschlecht und Alter, die ein Veranstalter erfasst, und die Positionen, die der Tracker meldet, den sie während eines Rennens tragen.',
    visitors:
      '<0>Besucher:</0> nichts über die technischen Daten hinaus, die jeder Webserver erhält (Adresse, Browser, Zeitpunkt der Anfrage); sie werden in kurzlebigen Protokollen gespeichert, um den Dienst sicher zu betreiben.',
    useTitle: 'Wofür wir sie nutzen',
    use: 'Positionen dienen nur dazu, die Karte und die Rangliste eines Rennens zu zeigen. Angaben zu Rennen, Strecke und Teilnehmenden werden öffentlich gezeigt, sobald ein Administrator das Rennen freigibt. Wir verkaufen keine Daten und nutzen sie nicht für Werbung.',
    runnersTitle: 'Privatsphäre der Teilnehmenden',
    runnersText:
      'Ein Veranstalter kann Positionen und Rangliste der Öffentlichkeit einige Minuten verzögert zeigen (Veranstalter und Rennleitung sehen sie live), die Spuren der Teilnehmenden privat halten und Teilnehmenden erlauben, ihre Live-Position zu verbergen: Sie bleiben nach ihrem Fortschritt in der Rangliste, ohne Punkt auf der öffentlichen Karte.',
    keepTitle: 'Wie lange wir sie speichern',
    keep: 'Positionen werden für den Zeitraum gespeichert, den der Veranstalter festlegt, gezählt ab dem Ende des Rennens, und dann gelöscht; die Ergebnisse (die Schlussrangliste und die Zwischenzeiten) bleiben. Ohne Zeitraum bleiben Positionen gespeichert, solange der Veranstalter das Rennen behält. Wer ein Rennen löscht, löscht seine Teilnehmenden, seine Strecke und seine Positionen. Anmeldedaten liegen im Sitzungsspeicher deines Browsers und werden gelöscht, wenn du den Tab schließt oder dich abmeldest.',
    race: 'Rennen',
    delay: 'Öffentliche Verzögerung',
    trails: 'Spuren',
    positions: 'Positionen',
    live: 'live',
    private: 'privat',
    public: 'öffentlich',
    keptUntilDeleted: 'gespeichert, bis das Rennen gelöscht wird',
    deletedAfter_one: '{{count}} Tag nach Rennende gelöscht',
    deletedAfter_other: '{{count}} Tage nach Rennende gelöscht',
    rightsTitle: 'Deine Rechte',
    rights:
      'Du kannst von uns eine Kopie der Daten über dich verlangen und sie berichtigen oder löschen lassen. Teilnehmende können sich an ihre Veranstalter oder direkt an uns wenden.',
  },
  terms: {
    title: 'Nutzungsbedingungen',
    intro:
      'Diese Bedingungen gelten für alle, die {{product}} nutzen: Besucher, die ein Rennen verfolgen, Veranstalter, die eines betreuen, und Administratoren, die den Dienst betreiben.',
    usingTitle: 'Nutzung des Dienstes',
    visitors: 'Besucher können öffentliche Rennen, ihre Strecken und Teilnehmenden kostenlos ansehen.',
    directors:
      'Veranstalter sind für die Rennen verantwortlich, die sie anlegen, und brauchen die Einwilligung ihrer Teilnehmenden, bevor sie sie erfassen und ihnen einen Tracker geben.',
    admins: 'Administratoren können Rennen freigeben, ablehnen oder entfernen und die Tracker verwalten.',
    bestEffortTitle: 'Tracking ohne Gewähr',
    bestEffort:
      'Live-Positionen hängen von Satelliten, Funkabdeckung und Akkus ab. Aktualisierungen kommen normalerweise alle 2,5 Minuten, können sich aber verspäten oder fehlen. Verlass dich für die Sicherheit von Teilnehmenden nie auf {{product}}: Es ist kein Notrufdienst.',
    useTitle: 'Zulässige Nutzung',
    use: 'Lade keine Inhalte hoch, die du nicht teilen darfst, versuche nicht, den Dienst zu stören oder zu überlasten, und nutze ihn nicht, um eine Person ohne ihre Einwilligung zu verfolgen. Wir können Konten sperren, die das tun.',
    liabilityTitle: 'Haftung',
    liability:
      'Der Dienst wird so bereitgestellt, wie er ist. Soweit gesetzlich zulässig, haften wir nicht für Schäden durch fehlende oder falsche Tracking-Daten.',
    changesTitle: 'Änderungen',
    changes: 'Wir können diese Bedingungen ändern; das Datum oben zeigt immer die gültige Fassung.',
  },
};

export default legal;
