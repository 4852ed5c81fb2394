/** DI tokens of the platform service. */
export const PLATFORM_CONFIG = Symbol('PLATFORM_CONFIG');
export const BLOB_STORE = Symbol('BLOB_STORE');
