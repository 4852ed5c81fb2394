import { createRemoteJWKSet, errors, JWTPayload, jwtVerify } from 'jose';
import type { Caller } from './caller';

export interface TokenVerifierOptions {
  /** Expected `iss`: the auth service's base address. */
  issuer: string;
  /** This service's own audience; a token for another audience is refused. */
  audience: string;
  jwksUrl: string;
}

export class TokenError extends Error {}

const ROLES = new Set(['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant']);

/**
 * Verifies RFC 9068 access tokens against the issuer's JWKS (cached by jose; an unknown `kid` triggers a
 * refetch, at most every 10 s). Only ES256 is accepted, so `alg: none` and HS256-with-the-public-key fail.
 */
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly opts: TokenVerifierOptions) {
    this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: 10_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 5000 });
  }

  async verify(token: string): Promise<Caller> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.opts.issuer,
        audience: this.opts.audience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      }));
    } catch (err) {
      throw new TokenError(describe(err));
    }
    const participantId = payload.participant_id;
    const role = payload.role;
    if (typeof participantId !== 'string' || typeof role !== 'string' || !ROLES.has(role)) {
      throw new TokenError('token lacks participant_id or role');
    }
    return {
      participantId,
      role: role as Caller['role'],
      clientId: typeof payload.client_id === 'string' ? payload.client_id : String(payload.sub),
      name: typeof payload.name === 'string' ? payload.name : undefined,
    };
  }
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim "${err.claim}" is not acceptable (${err.reason})`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (err instanceof errors.JWKSNoMatchingKey) return 'token was not signed by a known key';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm is not allowed';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return 'token is malformed';
  if (err instanceof errors.JWKSTimeout) return 'could not fetch the signing keys in time';
  return 'token is invalid';
}
