export * from './in-process.transport';
export * from './outbox';
export * from './outbox-relay';
export * from './wake-loop';
export * from './outbox-purger';
export * from './transport';
export * from './from-env';
export * from './consumer';
export * from './consumer-tables';
export * from './bounded-json';
export * from './kafka.transport';
export * from './kafka-config';
export * from './kafkajs-request-queue';
export * from './outbox-signal';
export * from './nest';
export * from './tracing';
export * from './broker-monitor';

import { settledExports } from '@dtp/domain';
// The exports as plain values instead of the build's getters (@dtp/domain settled-exports.ts says why).
module.exports = settledExports(module.exports);
