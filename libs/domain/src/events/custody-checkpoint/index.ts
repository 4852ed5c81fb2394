export * from './custody-checkpoint';
