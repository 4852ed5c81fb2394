import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'dtp:public';
/** Marks a route as reachable without a token (ops endpoints, the token endpoint, JWKS). */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
