import 'reflect-metadata'; // before any config class or decorator of the kit is declared
export * from './array-bounds';
export * from './settled';
export * from './bootstrap';
export * from './config';
export * from './consumer-health';
export * from './errors';
export * from './http-settings';
export * from './input-bounds';
export * from './kit.module';
export * from './listen';
export * from './logger';
export * from './metrics';
export * from './path-params';
export * from './public.decorator';
export * from './readiness';
export * from './service';
export * from './trusted-proxies';
export * from './validation.pipe';
export * from './service-config.module';
export * from './openapi';
export * from './contract-hook';
export * from './nest-interceptor-context';
export * from './rate-limit';
export * from './metric';
export * from './client-certificate';
export * from './tls-listener';
export * from './dev-certificates';
export * from './at-rest-cipher';
export * from './prewritten-json';

import { settledExports } from '@dtp/domain';
// The exports as plain values instead of the build's getters (@dtp/domain settled-exports.ts says why).
module.exports = settledExports(module.exports);
