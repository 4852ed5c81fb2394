export * from './auth-guard.module';
export * from './caller';
export * from './config';
export * from './jwt-auth.guard';
export * from './jwt.strategy';
export * from './token-verifier';
export * from './deny-list';
export * from './revocation-events.controller';
