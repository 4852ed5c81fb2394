export * from './actions';
export * from './entry';
export * from './merkle';
export * from './hashing';
export * from './jwks';
export * from './credential';
export * from './signing-key';
