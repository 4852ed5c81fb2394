import { createPrivateKey, createPublicKey, JsonWebKey } from 'node:crypto';
import { ValidationArguments, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** A private Ed25519 JWK with its `kid`, as CUSTODY_SIGNING_KEY carries it (JSON text). */
export interface CustodyPrivateJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  d: string;
  kid: string;
}

/** Why `text` is not a usable private Ed25519 JWK with a kid, or null when it is (the public `x` must match `d`). */
export function custodyKeyProblem(text: string): string | null {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'must be a JSON object (a private Ed25519 JWK with a kid)';
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return 'must be a JSON object (a private Ed25519 JWK with a kid)';
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') return 'must be an Ed25519 key (kty "OKP", crv "Ed25519")';
  if (typeof jwk.kid !== 'string' || jwk.kid.length === 0) return 'must carry a non-empty "kid"';
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string') return 'must be a private key (members "d" and "x")';
  // The public half is derived from "d" alone (RFC 8037: the 32-byte seed, base64url without padding), not from the
  // JWK as a whole: Node 24 refuses a JWK whose "x" does not match its "d" with only "Invalid JWK OKP key", where
  // Node 20 and 22 took "d" and ignored "x"; this way each gets the same reason.
  if (!/^[A-Za-z0-9_-]{43}$/.test(jwk.d)) return 'has a "d" that is not an Ed25519 private key (32 bytes, base64url)';
  let derived: JsonWebKey;
  try {
    const pkcs8 = Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(jwk.d, 'base64url')]);
    derived = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  } catch (err) {
    return `is not a valid key: ${(err as Error).message}`;
  }
  if (derived.x !== jwk.x) return 'has an "x" that is not the public half of its "d"';
  return null;
}

/** The DER of a PKCS #8 Ed25519 private key up to its 32-byte seed (RFC 8410 section 7). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** class-validator check of CUSTODY_SIGNING_KEY at start-up, in platform and in search (the config is refused with the reason). */
@ValidatorConstraint({ name: 'custodySigningKey' })
export class CustodySigningKeyText implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && custodyKeyProblem(value) === null;
  }

  defaultMessage(args?: ValidationArguments): string {
    const problem = typeof args?.value === 'string' ? custodyKeyProblem(args.value) : 'must be a string';
    return `${args?.property ?? 'CUSTODY_SIGNING_KEY'} ${problem ?? 'is invalid'}`;
  }
}
