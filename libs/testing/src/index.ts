export * from './database';
export * from './stack';
export * from './auth-helpers';
export * from './kafka';
export * from './hostile';
export * from './contract';
export * from './kafka-proxy';
export * from './entities';
