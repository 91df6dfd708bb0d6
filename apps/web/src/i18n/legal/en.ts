/**
 * The legal pages' English texts (namespace `legal`): the privacy policy and the terms of service. A lazy
 * catalogue: it comes with the legal pages' chunk, not with the first screen. `{{product}}` is the product name,
 * `<0>…</0>` an element (RichText).
 */
const legal = {
  effective: 'Effective date: {{date}}',
  contactTitle: 'Contact',
  contact: 'Questions about this page? Write to us at <0>{{email}}</0>.',
  privacy: {
    title: 'Privacy policy',
    intro:
      '{{product}} shows races live: where each runner is on the course while a race is running. This policy says what we keep, why, and for how long.',
    collectTitle: 'What we collect',
    directors:
      '<0>Race directors and administrators:</0> the account identifier, name and e-mail address given by the sign-in provider, and the races, courses and runners you enter.',
    runners:
      '<0>Runners:</0> the name, bib number, gender and age a race director registers, and the positions reported by the tracking device the runner carries during a race.',
    visitors:
      '<0>Visitors:</0> nothing beyond the technical data any web server receives (address, browser, time of the request), kept in short-lived logs to run the service securely.',
    useTitle: 'How we use it',
    use: "Positions are used only to show a race's map and leaderboard. Race, course and runner details are shown publicly once an administrator approves the race. We do not sell data or use it for advertising.",
    runnersTitle: 'Privacy of runners',
    runnersText:
      "A race director can show positions and the leaderboard to the public a number of minutes late (the director and race HQ see them live), keep runners' trails private, and let a runner hide their live position: that runner stays on the leaderboard by progress, with no dot on the public map.",
    keepTitle: 'How long we keep it',
    keep: "Positions are kept for the period the race director sets, counted from the end of the race, then deleted; the results (the final leaderboard and splits) stay. Without a period, positions are kept while the race director keeps the race. Deleting a race deletes its runners, course and positions. Sign-in data is kept in your browser's session storage and is cleared when you close the tab or log out.",
    race: 'Race',
    delay: 'Public delay',
    trails: 'Trails',
    positions: 'Positions',
    live: 'live',
    private: 'private',
    public: 'public',
    keptUntilDeleted: 'kept until the race is deleted',
    deletedAfter_one: 'deleted {{count}} day after the race ends',
    deletedAfter_other: 'deleted {{count}} days after the race ends',
    rightsTitle: 'Your rights',
    rights:
      'You can ask us for a copy of the data about you, to correct it, or to delete it. Runners can ask their race director or us directly.',
  },
  terms: {
    title: 'Terms of service',
    intro:
      'These terms apply to everyone who uses {{product}}: visitors following a race, race directors managing one, and administrators running the service.',
    usingTitle: 'Using the service',
    visitors: 'Visitors may browse public races, their courses and runners free of charge.',
    directors:
      "Race directors are responsible for the races they create and must have their runners' consent before registering them and handing them a tracking device.",
    admins: 'Administrators may approve, decline or remove races and manage the tracking devices.',
    bestEffortTitle: 'Tracking is best effort',
    bestEffort:
      'Live positions depend on satellites, radio coverage and batteries. Updates normally arrive every 2.5 minutes but may be late or missing. Never rely on {{product}} for the safety of a runner: it is not an emergency service.',
    useTitle: 'Acceptable use',
    use: 'Do not upload content you have no right to share, try to break or overload the service, or use it to follow a person without their consent. We may suspend accounts that do.',
    liabilityTitle: 'Liability',
    liability:
      'The service is provided as is. To the extent the law allows, we are not liable for losses caused by missing or wrong tracking data.',
    changesTitle: 'Changes',
    changes: 'We may update these terms; the effective date above always shows the current version.',
  },
};

export default legal;
