/**
 * @dtp/domain: the spec's enums, request DTOs (class-validator), response records, event contracts
 * and pure rules shared by the auth, platform, search and gis services. Imports nothing from apps.
 */
import 'reflect-metadata';
export * from './enums';
export * from './rules';
export * from './dto';
export * from './records';
export * from './events';
export * from './custody';
export * from './errors';
export * from './errors/idempotency';
export * from './webhooks';
export * from './settled-exports';

import { settledExports } from './settled-exports';
// The exports as plain values instead of the build's getters (settled-exports.ts says why).
module.exports = settledExports(module.exports);
