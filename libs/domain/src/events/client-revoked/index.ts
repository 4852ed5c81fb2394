export * from './client-revoked';
