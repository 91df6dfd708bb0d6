export * from './entities';
export * from './schemas';
