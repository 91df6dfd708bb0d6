import type { NamespaceCatalogue } from '../resources';

/** Les pages légales en français (mêmes clés que legal/en.ts). */
const legal: NamespaceCatalogue<'legal'> = {
  effective: 'Date d’entrée en vigueur : {{date}}',
  contactTitle: 'Contact',
  contact: 'Une question sur cette page ? Écrivez-nous à <0>{{email}}</0>.',
  privacy: {
    title: 'Politique de confidentialité',
    intro:
      '{{product}} montre les courses en direct : où se trouve chaque coureur sur le parcours pendant une course. Cette politique dit ce que nous conservons, pourquoi et pendant combien de temps.',
    collectTitle: 'Ce que nous collectons',
    directors:
      '<0>Organisateurs et administrateurs :</0> l’identifiant du compte, le nom et l’adresse e-mail fournis par le service de connexion, ainsi que les courses, parcours et coureurs que vous saisissez.',
    runners:
      '<0>Coureurs :</0> le nom, le numéro de dossard, le genre et l’âge qu’un organisateur enregistre, et les positions transmises par la balise que le coureur porte pendant une course.',
    visitors:
      '<0>Visiteurs :</0> rien au-delà des données techniques que reçoit tout serveur web (adresse, navigateur, heure de la requête), conservées dans des journaux de courte durée pour faire fonctionner le service en sécurité.',
    useTitle: 'Ce que nous en faisons',
    use: 'Les positions servent uniquement à afficher la carte et le classement d’une course. Les informations sur la course, le parcours et les coureurs sont publiques une fois la course approuvée par un administrateur. Nous ne vendons pas de données et ne les utilisons pas pour la publicité.',
    runnersTitle: 'Vie privée des coureurs',
    runnersText:
      'Un organisateur peut montrer les positions et le classement au public avec quelques minutes de retard (l’organisateur et le PC course les voient en direct), garder privées les traces des coureurs, et permettre à un coureur de masquer sa position en direct : ce coureur reste au classement selon sa progression, sans point sur la carte publique.',
    keepTitle: 'Combien de temps nous les conservons',
    keep: 'Les positions sont conservées pendant la durée fixée par l’organisateur, comptée à partir de la fin de la course, puis supprimées ; les résultats (le classement final et les temps intermédiaires) restent. Sans durée fixée, les positions sont conservées tant que l’organisateur garde la course. Supprimer une course supprime ses coureurs, son parcours et ses positions. Les données de connexion sont conservées dans le stockage de session de votre navigateur et effacées quand vous fermez l’onglet ou vous déconnectez.',
    race: 'Course',
    delay: 'Retard public',
    trails: 'Traces',
    positions: 'Positions',
    live: 'en direct',
    private: 'privées',
    public: 'publiques',
    keptUntilDeleted: 'conservées jusqu’à la suppression de la course',
    deletedAfter_one: 'supprimées {{count}} jour après la fin de la course',
    deletedAfter_other: 'supprimées {{count}} jours après la fin de la course',
    rightsTitle: 'Vos droits',
    rights:
      'Vous pouvez nous demander une copie des données qui vous concernent, les faire corriger ou les faire supprimer. Les coureurs peuvent s’adresser à leur organisateur ou directement à nous.',
  },
  terms: {
    title: 'Conditions d’utilisation',
    intro:
      'Ces conditions s’appliquent à toute personne qui utilise {{product}} : les visiteurs qui suivent une course, les organisateurs qui en gèrent une et les administrateurs qui font fonctionner le service.',
    usingTitle: 'Utiliser le service',
    visitors:
      'Les visiteurs peuvent consulter gratuitement les courses publiques, leurs parcours et leurs coureurs.',
    directors:
      'Les organisateurs sont responsables des courses qu’ils créent et doivent avoir le consentement de leurs coureurs avant de les inscrire et de leur remettre une balise.',
    admins:
      'Les administrateurs peuvent approuver, refuser ou retirer des courses et gérer les balises de suivi.',
    bestEffortTitle: 'Le suivi est fourni au mieux',
    bestEffort:
      'Les positions en direct dépendent des satellites, de la couverture radio et des batteries. Les mises à jour arrivent normalement toutes les 2,5 minutes mais peuvent être en retard ou manquer. Ne comptez jamais sur {{product}} pour la sécurité d’un coureur : ce n’est pas un service de secours.',
    useTitle: 'Usage acceptable',
    use: 'Ne publiez pas de contenu que vous n’avez pas le droit de partager, n’essayez pas de casser ou de surcharger le service, et ne l’utilisez pas pour suivre une personne sans son consentement. Nous pouvons suspendre les comptes qui le font.',
    liabilityTitle: 'Responsabilité',
    liability:
      'Le service est fourni en l’état. Dans la mesure permise par la loi, nous ne sommes pas responsables des pertes causées par des données de suivi manquantes ou erronées.',
    changesTitle: 'Modifications',
    changes:
      'Nous pouvons modifier ces conditions ; la date d’entrée en vigueur ci-dessus indique toujours la version en cours.',
  },
};

export default legal;
