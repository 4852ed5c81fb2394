export * from './share-changed';
