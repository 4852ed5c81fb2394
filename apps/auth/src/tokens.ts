/** Nest injection tokens of the auth service. */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');
