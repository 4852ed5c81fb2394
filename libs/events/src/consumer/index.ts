export * from './types';
export * from './errors';
export { runConsumer } from './run-consumer';
export { CLAIM_SQL } from './claims';
export { itemHandlers } from './items';
