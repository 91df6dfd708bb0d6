/**
 * Everything the domain package offers. The server imports from here; the browser imports from the subpaths
 * (`@racebeacon/domain/entities`, `/schemas`, `/gpx`, `/course`, `/live`, `/constants`, `/alerts`) so that each
 * screen loads only what it uses.
 */
export * from './constants';
export * from './languages';
export * from './entities';
export * from './schemas';
export * from './gpx';
export * from './course';
export * from './live-messages';
export * from './alerts';
export * from './trackers';
export * from './mapshare-kml';
export * from './checkin';
export * from './push';
export * from './csv';
export * from './runner-csv';
export * from './privacy';
export * from './sorted';
export * from './claims';
