/** Nest injection tokens of the auth service. */

/** The validated AuthConfig (the service's global providers: app.ts; the CLI's: cli/cli.module.ts). */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');
