export * from './events.server';
export * from './events.module';
