export * from './diamond-deleted';
