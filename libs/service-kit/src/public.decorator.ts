import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC_KEY = 'dtp:public';
/** Operation extension that tells the OpenAPI document builder (openapi.ts) to write `security: []`. */
export const PUBLIC_EXTENSION = 'x-dtp-public';
/** Marks a route as reachable without a token (ops endpoints, the token endpoint, JWKS), in the guard and in the docs. */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), ApiExtension(PUBLIC_EXTENSION, true));
