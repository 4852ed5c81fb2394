export * from './data-source';
export * from './unit-of-work';
export * from './database.module';
export * from './idempotency';
export * from './entity-columns';
export * from './json-array';
