export * from './diamond-upserted';
