import type { NamespaceCatalogue } from '../resources';

/** Le pagine legali in italiano (le stesse chiavi di legal/en.ts). */
const legal: NamespaceCatalogue<'legal'> = {
  effective: 'Data di entrata in vigore: {{date}}',
  contactTitle: 'Contatti',
  contact: 'Domande su questa pagina? Scrivici a <0>{{email}}</0>.',
  privacy: {
    title: 'Informativa sulla privacy',
    intro:
      '{{product}} mostra le gare in diretta: dove si trova ogni concorrente sul percorso durante una gara. Questa informativa spiega cosa conserviamo, perché e per quanto tempo.',
    collectTitle: 'Cosa raccogliamo',
    directors:
      '<0>Organizzatori e amministratori:</0> l’identificativo dell’account, il nome e l’indirizzo e-mail forniti dal servizio di accesso, e le gare, i percorsi e i concorrenti che inserisci.',
    runners:
      '<0>Concorrenti:</0> il nome, il pettorale, il genere e l’età che un organizzatore registra, e le posizioni inviate dal localizzatore che il concorrente porta durante una gara.',
    visitors:
      '<0>Visitatori:</0> nient’altro che i dati tecnici che riceve qualsiasi server web (indirizzo, browser, ora della richiesta), conservati in log di breve durata per far funzionare il servizio in sicurezza.',
    useTitle: 'Come li usiamo',
    use: 'Le posizioni servono solo a mostrare la mappa e la classifica di una gara. I dati di gara, percorso e concorrenti sono mostrati pubblicamente quando un amministratore approva la gara. Non vendiamo dati e non li usiamo per la pubblicità.',
    runnersTitle: 'Privacy dei concorrenti',
    runnersText:
      'Un organizzatore può mostrare posizioni e classifica al pubblico con qualche minuto di ritardo (l’organizzatore e la direzione gara le vedono in diretta), mantenere private le tracce dei concorrenti e permettere a un concorrente di nascondere la sua posizione in diretta: quel concorrente resta in classifica secondo il suo avanzamento, senza punto sulla mappa pubblica.',
    keepTitle: 'Per quanto tempo li conserviamo',
    keep: 'Le posizioni sono conservate per il periodo stabilito dall’organizzatore, contato dalla fine della gara, poi cancellate; i risultati (la classifica finale e i parziali) restano. Senza un periodo, le posizioni sono conservate finché l’organizzatore tiene la gara. Cancellare una gara cancella i suoi concorrenti, il percorso e le posizioni. I dati di accesso sono conservati nella memoria di sessione del browser e vengono cancellati quando chiudi la scheda o esci.',
    race: 'Gara',
    delay: 'Ritardo pubblico',
    trails: 'Tracce',
    positions: 'Posizioni',
    live: 'in diretta',
    private: 'private',
    public: 'pubbliche',
    keptUntilDeleted: 'conservate finché la gara non viene cancellata',
    deletedAfter_one: 'cancellate {{count}} giorno dopo la fine della gara',
    deletedAfter_other: 'cancellate {{count}} giorni dopo la fine della gara',
    rightsTitle: 'I tuoi diritti',
    rights:
      'Puoi chiederci una copia dei dati che ti riguardano, di correggerli o di cancellarli. I concorrenti possono rivolgersi al loro organizzatore o direttamente a noi.',
  },
  terms: {
    title: 'Termini di servizio',
    intro:
      'Questi termini valgono per chiunque usi {{product}}: i visitatori che seguono una gara, gli organizzatori che ne gestiscono una e gli amministratori che fanno funzionare il servizio.',
    usingTitle: 'Uso del servizio',
    visitors:
      'I visitatori possono consultare gratuitamente le gare pubbliche, i loro percorsi e i concorrenti.',
    directors:
      'Gli organizzatori sono responsabili delle gare che creano e devono avere il consenso dei concorrenti prima di iscriverli e consegnare loro un localizzatore.',
    admins: 'Gli amministratori possono approvare, rifiutare o rimuovere gare e gestire i localizzatori.',
    bestEffortTitle: 'Il tracciamento è senza garanzia',
    bestEffort:
      'Le posizioni in diretta dipendono da satelliti, copertura radio e batterie. Gli aggiornamenti arrivano di solito ogni 2,5 minuti ma possono tardare o mancare. Non affidarti mai a {{product}} per la sicurezza di un concorrente: non è un servizio di emergenza.',
    useTitle: 'Uso consentito',
    use: 'Non caricare contenuti che non hai il diritto di condividere, non cercare di rompere o sovraccaricare il servizio e non usarlo per seguire una persona senza il suo consenso. Possiamo sospendere gli account che lo fanno.',
    liabilityTitle: 'Responsabilità',
    liability:
      'Il servizio è fornito così com’è. Nei limiti consentiti dalla legge, non siamo responsabili delle perdite causate da dati di tracciamento mancanti o errati.',
    changesTitle: 'Modifiche',
    changes:
      'Possiamo aggiornare questi termini; la data di entrata in vigore qui sopra indica sempre la versione attuale.',
  },
};

export default legal;
