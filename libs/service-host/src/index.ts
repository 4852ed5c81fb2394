export * from './service-core.module';
export * from './define-service';
