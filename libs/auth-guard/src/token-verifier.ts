import { createRemoteJWKSet, errors, JWTPayload, jwtVerify } from 'jose';
import type { Caller } from './caller';

export interface TokenVerifierOptions {
  /** Expected `iss`: the auth service's base address. */
  issuer: string;
  /** This service's own audience; a token for another audience is refused. */
  audience: string;
  jwksUrl: string;
  /** Seconds of clock skew tolerated on exp/nbf/iat (default 5). */
  clockToleranceSeconds?: number;
}

/** The token is not acceptable: 401. */
export class TokenError extends Error {}

/** The issuer's keys could not be fetched, so no token can be checked now: 503, not the caller's fault. */
export class KeysUnavailableError extends Error {}

const ROLES = new Set(['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant']);
/** At most one JWKS refetch per second for tokens whose `kid` is not known yet. */
const COOLDOWN_MS = 1000;

/**
 * Verifies RFC 9068 access tokens against the issuer's JWKS. jose caches the key set (10 min) and refetches it
 * when a token names an unknown `kid`, at most once per second; a token signed by a key published during that
 * second waits for the next refetch instead of failing, so a key rotation never refuses good tokens. Only ES256
 * is accepted (`alg: none`, HS256 signed with the public key and every other algorithm fail), `typ` must be
 * `at+jwt`, and iss, aud, exp, iat, sub, jti, participant_id and role are required.
 */
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  /**
   * Tokens already verified, until their `exp`: a client reuses its token for up to an hour, and the ES256
   * check is the costliest step of a request. Keyed by the whole token text, so any altered token misses.
   */
  private readonly verified = new Map<string, { caller: Caller; expiresAt: number }>();
  private static readonly CACHE_MAX = 10_000;

  constructor(private readonly opts: TokenVerifierOptions) {
    this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: COOLDOWN_MS, cacheMaxAge: 10 * 60_000, timeoutDuration: 5000 });
  }

  async verify(token: string): Promise<Caller> {
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.expiresAt > Date.now()) return hit.caller;
      this.verified.delete(token);
    }
    const { caller, exp } = await this.verifyUncached(token);
    if (this.verified.size >= TokenVerifier.CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { caller, expiresAt: exp * 1000 });
    return caller;
  }

  private async verifyUncached(token: string): Promise<{ caller: Caller; exp: number }> {
    let payload: JWTPayload;
    try {
      payload = await this.check(token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey && this.jwks.coolingDown) {
        await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS));
        payload = await this.check(token).catch((again: unknown) => {
          throw classify(again);
        });
      } else {
        throw classify(err);
      }
    }
    const participantId = payload.participant_id;
    const role = payload.role;
    if (typeof participantId !== 'string' || participantId === '' || typeof role !== 'string' || !ROLES.has(role)) {
      throw new TokenError('token lacks participant_id or role');
    }
    const caller: Caller = {
      participantId,
      role: role as Caller['role'],
      clientId: typeof payload.client_id === 'string' ? payload.client_id : String(payload.sub),
      name: typeof payload.name === 'string' ? payload.name : undefined,
    };
    return { caller, exp: payload.exp! };
  }

  private async check(token: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.jwks, {
      issuer: this.opts.issuer,
      audience: this.opts.audience,
      algorithms: ['ES256'],
      typ: 'at+jwt',
      clockTolerance: this.opts.clockToleranceSeconds ?? 5,
      requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub', 'jti'],
    });
    return payload;
  }
}

/** TokenError (401) for a bad token; KeysUnavailableError (503) when the key set could not be had. */
function classify(err: unknown): Error {
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) return new KeysUnavailableError(`could not fetch the signing keys: ${err.message}`);
  // jose reports a non-200 or non-JSON key set answer with the base JOSEError class.
  if (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC') return new KeysUnavailableError(`could not fetch the signing keys: ${err.message}`);
  if (err instanceof errors.JOSEError) return new TokenError(describe(err));
  if (isNetworkError(err)) return new KeysUnavailableError(`could not fetch the signing keys: ${(err as Error).message}`);
  return new TokenError('token is invalid');
}

/** Duck-typed: errors from Node's own http module may come from another realm (Jest), so no instanceof Error. */
function isNetworkError(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)$/.test(code);
}

function describe(err: errors.JOSEError): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token claim "${err.claim}" is not acceptable (${err.reason})`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (err instanceof errors.JWKSNoMatchingKey) return 'token was not signed by a known key';
  if (err instanceof errors.JWKSMultipleMatchingKeys) return 'token does not name its signing key (kid)';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm is not allowed';
  if (err instanceof errors.JOSENotSupported) return 'token uses an unsupported algorithm';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return 'token is malformed';
  return 'token is invalid';
}
