import { randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are stored as scrypt hashes with a per-secret salt and the parameters used, so that they can be
 * raised later without invalidating existing secrets: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 *
 * Default cost N = 2^14, r = 8, p = 1 (16 MiB, about 40 ms on one core here). The secrets are 256-bit random
 * values, so the hash only has to make a stolen table useless, not slow down dictionary attacks on weak
 * passwords; the cost is configurable (SCRYPT_LOG_N) and stored per hash.
 */
export interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT: ScryptParams = { logN: 14, r: 8, p: 1 };

/** Longest client id or secret accepted (ours are 26 and 43 characters). */
export const MAX_CREDENTIAL_LENGTH = 256;

/**
 * Client ids and secrets are RFC 6749 VSCHARs (Appendix A.1, A.2): printable ASCII, %x20-7E, here 1 to 256 of
 * them. Anything else (NUL, control characters, DEL, non-ASCII, lone surrogates) is refused before any lookup
 * or derivation.
 *
 * Why this matters beyond tidiness: scrypt's inner PBKDF2-HMAC-SHA256 uses the secret as the HMAC key, and HMAC
 * pads a key shorter than its 64-byte block with zero bytes, so `secret` and `secret + "\0"` (and any further NULs
 * up to 64 bytes) derive the same hash; and UTF-8 encoding turns every lone surrogate into U+FFFD, so two
 * different strings can become the same bytes. Restricted to printable ASCII, the bytes hashed are exactly the
 * characters sent and no trailing zero byte can exist, so a secret matches byte for byte or not at all.
 */
export function isCredentialText(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_CREDENTIAL_LENGTH && /^[\x20-\x7E]+$/.test(value);
}
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(secret: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** 32 random bytes, base64url: the client secret shown once to its owner. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A random, unguessable client id (not secret, but not enumerable either). */
export function newClientId(): string {
  return `dtp_${randomBytes(16).toString('base64url')}`;
}

export async function hashSecret(secret: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  if (!isCredentialText(secret)) throw new Error('a client secret must be 1 to 256 printable ASCII characters');
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(secret, salt, params);
  return ['scrypt', params.logN, params.r, params.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

interface ParsedHash extends ScryptParams {
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') throw new Error('unsupported secret hash format');
  const [logN, r, p] = parts.slice(1, 4).map(Number);
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new Error('secret hash has out-of-range scrypt parameters');
  }
  return { logN, r, p, salt: Buffer.from(parts[4], 'base64url'), hash: Buffer.from(parts[5], 'base64url') };
}

/**
 * Compares in constant time (timingSafeEqual) after doing the full scrypt work. A secret that is not credential
 * text (see `isCredentialText`: e.g. the real secret followed by a NUL) never matches, whatever it derives to.
 */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  const wellFormed = isCredentialText(secret);
  const candidate = await derive(wellFormed ? secret : '', parsed.salt, parsed);
  return wellFormed && candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

/**
 * A hash of a random secret nobody knows, with the current parameters: verifying against it costs what a real
 * check costs, so an unknown client id takes as long as a wrong secret (no timing oracle for client ids).
 */
export async function decoyHash(params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  return hashSecret(randomBytes(32).toString('base64url'), params);
}
