export * from './data-source';
export * from './unit-of-work';
export * from './database.module';
export * from './idempotency';
export * from './entity-columns';
export * from './json-array';

import { settledExports } from '@dtp/domain';
// The exports as plain values instead of the build's getters (@dtp/domain settled-exports.ts says why).
module.exports = settledExports(module.exports);
