export * from './auth-guard.module';
export * from './caller';
export * from './config';
export * from './jwt-auth.guard';
export * from './jwt.strategy';
export * from './token-verifier';
export * from './deny-list';
export * from './revocation-events.controller';
export * from './certificate-registry';

import { settledExports } from '@dtp/domain';
// The exports as plain values instead of the build's getters (@dtp/domain settled-exports.ts says why).
module.exports = settledExports(module.exports);
