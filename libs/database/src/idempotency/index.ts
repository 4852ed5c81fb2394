export * from './idempotency.interceptor';
export * from './idempotency.module';
export * from './idempotency.store';
export * from './idempotent-routes';
export * from './openapi';
export * from './request-fingerprint';
