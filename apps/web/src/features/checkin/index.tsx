/** The aid-station volunteer's check-in page: a lazy chunk of its own (route /checkin/{token}). */
export { CheckinPage } from './checkin-page';
