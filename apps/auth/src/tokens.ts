/** Nest injection tokens of the auth service. */

/** The validated AuthConfig (config.module.ts). */
export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

/** The service's EventTransport (in-process bus or Kafka), handed in by whoever starts the service. */
export const AUTH_EVENT_TRANSPORT = Symbol('AUTH_EVENT_TRANSPORT');
