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
