import { createRemoteJWKSet, errors, JWTPayload, jwtVerify } from 'jose';
import type { Caller } from './caller';
import { ClientDenyList } from './deny-list';

export interface TokenVerifierOptions {
  /** Expected `iss`: the auth service's base address. */
  issuer: string;
  /** This service's own audience; a token for another audience is refused. */
  audience: string;
  jwksUrl: string;
  /** Seconds of clock skew tolerated on exp/nbf (default 5). */
  clockToleranceSeconds?: number;
  /**
   * The issuer's token lifetime (its TOKEN_TTL_SECONDS). A token whose `exp` lies further than this (plus the
   * skew) from its `iat` or from now is refused, whatever its signature. Default 86400: the longest the auth
   * service can be configured to issue; pass the configured value (TokenCheckingConfig.TOKEN_TTL_SECONDS).
   */
  tokenTtlSeconds?: number;
  /** How far in the future `iat` may lie, and the slack on the lifetime checks (default 60 seconds). */
  maxClockSkewSeconds?: number;
}

/** The longest lifetime the auth service issues (its TOKEN_TTL_SECONDS maximum). */
export const MAX_TOKEN_TTL_SECONDS = 24 * 3600;
export const DEFAULT_MAX_CLOCK_SKEW_SECONDS = 60;

/** The token is not acceptable: 401. */
export class TokenError extends Error {}

/** The issuer's keys could not be fetched, so no token can be checked now: 503, not the caller's fault. */
export class KeysUnavailableError extends Error {}

const ROLES = new Set(['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant']);
/** At most one JWKS refetch per second for tokens whose `kid` is not known yet. */
const COOLDOWN_MS = 1000;

/** Tokens of a revoked client are refused with this message (401 invalid_token, like any other bad token). */
export const REVOKED_TOKEN_MESSAGE = 'token has been revoked';

/**
 * Verifies RFC 9068 access tokens against the issuer's JWKS. jose caches the key set (10 min) and refetches it
 * when a token names an unknown `kid`, at most once per second; a token signed by a key published during that
 * second waits for the next refetch instead of failing, so a key rotation never refuses good tokens. Only ES256
 * is accepted (`alg: none`, HS256 signed with the public key and every other algorithm fail), `typ` must be
 * `at+jwt`, and iss, aud, exp, iat, sub, jti, participant_id and role are required. `iat` may not lie in the
 * future by more than the skew (60 s), and `exp` may not lie further than the issuer's token lifetime plus the
 * skew from `iat` or from now: a token with an absurd lifetime was not issued by our auth service as configured.
 */
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  /**
   * Tokens already verified, until their `exp`: a client reuses its token for up to an hour, and the ES256
   * check is the costliest step of a request. Keyed by the whole token text, so any altered token misses.
   */
  private readonly verified = new Map<string, { caller: Caller; iat: number; expiresAt: number }>();
  private static readonly CACHE_MAX = 10_000;
  /**
   * Revoked clients (fed by a consumer of `client.revoked`: startRevocationConsumer). Consulted on every request,
   * cached token or not: a token of a client revoked after it was cached is refused from the next request on.
   */
  readonly denyList: ClientDenyList;

  constructor(private readonly opts: TokenVerifierOptions) {
    this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: COOLDOWN_MS, cacheMaxAge: 10 * 60_000, timeoutDuration: 5000 });
    const skew = opts.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS;
    const ttl = opts.tokenTtlSeconds ?? MAX_TOKEN_TTL_SECONDS;
    // A refused token has iat <= revoked_at + skew and exp <= iat + ttl + skew (checkLifetime), accepted until
    // exp + clock tolerance: after that the entry refuses nothing that is not refused anyway.
    this.denyList = new ClientDenyList({ marginSeconds: skew, retainSeconds: skew + ttl + skew + (opts.clockToleranceSeconds ?? 5) + 60 });
  }

  async verify(token: string): Promise<Caller> {
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.expiresAt > Date.now()) {
        if (this.denyList.refuses(hit.caller.clientId, hit.iat)) {
          this.verified.delete(token);
          throw new TokenError(REVOKED_TOKEN_MESSAGE);
        }
        return hit.caller;
      }
      this.verified.delete(token);
    }
    const { caller, exp, iat } = await this.verifyUncached(token);
    if (this.denyList.refuses(caller.clientId, iat)) throw new TokenError(REVOKED_TOKEN_MESSAGE);
    if (this.verified.size >= TokenVerifier.CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { caller, iat, expiresAt: exp * 1000 });
    return caller;
  }

  private async verifyUncached(token: string): Promise<{ caller: Caller; exp: number; iat: number }> {
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
    this.checkLifetime(payload);
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
    return { caller, exp: payload.exp!, iat: payload.iat! };
  }

  /** iat not in the future beyond the skew; exp within the issuer's token lifetime (plus skew) of iat and of now. */
  private checkLifetime(payload: JWTPayload): void {
    const skew = this.opts.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS;
    const ttl = this.opts.tokenTtlSeconds ?? MAX_TOKEN_TTL_SECONDS;
    const now = Math.floor(Date.now() / 1000);
    const iat = payload.iat!;
    const exp = payload.exp!;
    if (iat > now + skew) throw new TokenError('token claim "iat" is in the future');
    if (exp - iat > ttl + skew) throw new TokenError('token claim "exp" is further from "iat" than the token lifetime');
    if (exp > now + ttl + skew) throw new TokenError('token claim "exp" is further in the future than the token lifetime');
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
