/**
 * Which operations take an Idempotency-Key: every POST and PATCH of a service that imports the IdempotencyModule
 * (in platform and gis, exactly the state-changing operations). The one rule the interceptor and the OpenAPI
 * documentation (`documentIdempotencyKey`) both follow.
 */
export const IDEMPOTENT_METHODS: readonly string[] = ['POST', 'PATCH'];

export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT_METHODS.includes(method.toUpperCase());
}
