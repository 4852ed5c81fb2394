export * from './client-certificate-changed';
