// The generated types of each service under one name, and shortcuts to their schemas:
// `PlatformSchema<'DiamondV1'>`, `GisSchema<'VerifyRequestDto'>`, ...
import type * as Auth from './generated/auth';
import type * as Gis from './generated/gis';
import type * as Platform from './generated/platform';
import type * as Search from './generated/search';

export type { Auth, Gis, Platform, Search };

export type AuthSchema<K extends keyof Auth.components['schemas']> = Auth.components['schemas'][K];
export type PlatformSchema<K extends keyof Platform.components['schemas']> = Platform.components['schemas'][K];
export type SearchSchema<K extends keyof Search.components['schemas']> = Search.components['schemas'][K];
export type GisSchema<K extends keyof Gis.components['schemas']> = Gis.components['schemas'][K];

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Operation<P, Path extends keyof P, M extends string> = M extends keyof P[Path] ? P[Path][M] : never;

/** The JSON body an operation takes: `RequestBody<Platform.paths, '/diamonds/rough/create', 'post'>`. */
export type RequestBody<P, Path extends keyof P, M extends string> = Operation<P, Path, M> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

/** The JSON an operation answers with a 2xx status: `SuccessBody<Platform.paths, '/v2/transfer/out', 'post'>`. */
export type SuccessBody<P, Path extends keyof P, M extends string> =
  Operation<P, Path, M> extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R] : never;
