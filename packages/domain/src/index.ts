export * from './entities';
export * from './schemas';
export * from './gpx';
export * from './course';
export * from './live-messages';
