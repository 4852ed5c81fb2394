/**
 * Legacy integrations by mutual TLS (the spec: "Integrations made before 30/06/2023 may still use mutual TLS; new
 * integrations are given OAuth 2.0 credentials only"; DESIGN.md "Legacy integrations: mutual TLS").
 */

/** Participants whose integration started before this instant may register client certificates. */
export const MTLS_INTEGRATION_CUTOFF = '2023-06-30T00:00:00.000Z';

/** Whether a participant whose integration started at `startedAt` may use mutual TLS. */
export function mayUseMutualTls(startedAt: Date | string): boolean {
  const at = startedAt instanceof Date ? startedAt.getTime() : Date.parse(startedAt);
  return Number.isFinite(at) && at < Date.parse(MTLS_INTEGRATION_CUTOFF);
}

/** Longest PEM text accepted for one certificate (a certificate with a large key and many extensions fits). */
export const CERTIFICATE_PEM_MAX_LENGTH = 16 * 1024;

/** RFC 8705 3.1 `x5t#S256`: base64url (no padding) of a SHA-256, 43 characters. */
export const X5T_S256_PATTERN = /^[A-Za-z0-9_-]{43}$/;
