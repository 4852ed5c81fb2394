export * from './in-process.transport';
export * from './outbox';
export * from './outbox-relay';
export * from './transport';
export * from './from-env';
export * from './consumer';
export * from './consumer-tables';
export * from './kafka.transport';
