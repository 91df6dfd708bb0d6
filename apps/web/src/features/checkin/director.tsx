/** The director's side of check-ins (the race page's check-in links): a lazy chunk apart from the volunteer page. */
export { CheckinLinksSection } from './links-section';
