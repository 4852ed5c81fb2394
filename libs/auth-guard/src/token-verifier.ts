import { KeyObject, verify as verifySignature } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { base64url, createRemoteJWKSet, decodeProtectedHeader, errors, ProtectedHeaderParameters } from 'jose';
import type { VerifyOptions } from 'jsonwebtoken';
import { Strategy as PassportJwtStrategy } from 'passport-jwt';
import type { Caller } from './caller';
import { ClientDenyList } from './deny-list';
import { CertificateRegistry } from './certificate-registry';

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
const ALGORITHM = 'ES256';
const TYP = 'at+jwt';
/** Claims every token must carry, in the order their absence is reported. */
const REQUIRED_CLAIMS = ['iss', 'aud', 'jti', 'sub', 'iat', 'exp'] as const;

/** Tokens of a revoked client are refused with this message (401 invalid_token, like any other bad token). */
export const REVOKED_TOKEN_MESSAGE = 'token has been revoked';

/** What the JWT library (jsonwebtoken, through passport-jwt) is asked to check; `complete` hands the header on too. */
export interface JwtCheckOptions {
  algorithms: ['ES256'];
  issuer: string;
  audience: string;
  ignoreExpiration: false;
  jsonWebTokenOptions: VerifyOptions & { clockTolerance: number; complete: true };
}

/** A token as the JWT library hands it on once its signature, `exp`, `nbf`, `iss` and `aud` are checked. */
export interface DecodedToken {
  header: Record<string, unknown>;
  payload: unknown;
}

type JwtVerifier = (token: string, key: KeyObject, options: VerifyOptions, done: (err: Error | null, decoded?: DecodedToken) => void) => void;
/** passport-jwt's own verification step (jsonwebtoken's `verify`, the strategy calls nothing else). */
const passportJwtVerify = (PassportJwtStrategy as unknown as { JwtVerifier: JwtVerifier }).JwtVerifier;

/**
 * RFC 9068 access tokens of the auth service: everything the guard's passport-jwt strategy (JwtStrategy) needs
 * besides passport-jwt itself, and `verify` for code that checks a token outside a request.
 *
 * - `keyFor` (the strategy's `secretOrKeyProvider`) reads the JOSE header and finds the signing key in the issuer's
 *   JWKS by `kid`. jose's createRemoteJWKSet caches the key set (10 min) and refetches it when a token names an
 *   unknown `kid`, at most once per second; a token signed by a key published during that second waits for the
 *   next refetch instead of failing, so a key rotation never refuses good tokens. The key goes to passport-jwt as
 *   a KeyObject. Only ES256 is accepted (`alg: none`, HS256 signed with the public key and every other algorithm
 *   are refused before any key is looked up).
 * - passport-jwt (jsonwebtoken) checks the signature, `exp`/`nbf` with the clock tolerance, `iss` and `aud`
 *   (`jwtOptions`).
 * - `accept` (the strategy's `validate`) then checks the claims in one place and one order (repeating
 *   jsonwebtoken's few, which costs nothing next to the signature): `typ` must be `at+jwt`; iss, aud, exp, iat,
 *   sub, jti, participant_id and role are required; `iat` may not lie in the future by more than the skew (60 s),
 *   and `exp` may not lie further than the issuer's token lifetime plus the skew from `iat` or from now (a token
 *   with an absurd lifetime was not issued by our auth service as configured); the client may not be revoked
 *   (deny-list).
 * - `explain` turns a refusal of passport-jwt into the message the guard sends. The messages and their order are
 *   those of the jose-based verifier this replaced: a token with several faults is refused for the first of
 *   header, key, signature, typ, missing claims, iss, aud, iat, nbf, exp, lifetime, participant and role.
 *
 * Verified tokens are cached until their `exp` (`cached`): the signature check is the costliest step of a
 * guarded request (bench/auth-guard.bench.ts).
 */
/** The options of an app's TokenVerifier (AuthGuardModule.forRoot). */
export const TOKEN_VERIFIER_OPTIONS = Symbol('TOKEN_VERIFIER_OPTIONS');

@Injectable()
export class TokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  /**
   * Tokens already verified, until their `exp`: a client reuses its token for up to an hour, and the ES256
   * check is the costliest step of a request. Keyed by the whole token text, so any altered token misses.
   */
  private readonly verified = new Map<string, { caller: Caller; iat: number; expiresAt: number }>();
  private static readonly CACHE_MAX = 10_000;
  /**
   * Revoked clients (fed by the `client.revoked` handler: RevocationEventsController). Consulted on every request,
   * cached token or not: a token of a client revoked after it was cached is refused from the next request on.
   */
  readonly denyList: ClientDenyList;
  /** Legacy participants' registered client certificates (fed by `client_certificate.changed`: RevocationEventsController). */
  readonly certificates = new CertificateRegistry();
  /** passport-jwt's options for these tokens (also used by `verify`). */
  readonly jwtOptions: JwtCheckOptions;
  private readonly clockTolerance: number;
  private readonly skew: number;
  private readonly ttl: number;

  constructor(@Inject(TOKEN_VERIFIER_OPTIONS) private readonly opts: TokenVerifierOptions) {
    this.jwks = createRemoteJWKSet(new URL(opts.jwksUrl), { cooldownDuration: COOLDOWN_MS, cacheMaxAge: 10 * 60_000, timeoutDuration: 5000 });
    this.clockTolerance = opts.clockToleranceSeconds ?? 5;
    this.skew = opts.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS;
    this.ttl = opts.tokenTtlSeconds ?? MAX_TOKEN_TTL_SECONDS;
    this.jwtOptions = {
      algorithms: [ALGORITHM],
      issuer: opts.issuer,
      audience: opts.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: this.clockTolerance, complete: true },
    };
    // A refused token has iat <= revoked_at + skew and exp <= iat + ttl + skew (the lifetime checks), accepted
    // until exp + clock tolerance: after that the entry refuses nothing that is not refused anyway.
    this.denyList = new ClientDenyList({ marginSeconds: this.skew, retainSeconds: this.skew + this.ttl + this.skew + this.clockTolerance + 60 });
  }

  /** Verifies a token (the compact JWS, without `Bearer`) as the guard does. Throws TokenError or KeysUnavailableError. */
  async verify(token: string): Promise<Caller> {
    const hit = this.cached(token);
    if (hit) return hit;
    const key = await this.keyFor(token);
    const { jsonWebTokenOptions, ...options } = this.jwtOptions;
    const decoded = await new Promise<DecodedToken>((resolve, reject) =>
      passportJwtVerify(token, key, { ...jsonWebTokenOptions, ...options }, (err, result) => (err ? reject(err) : resolve(result!))),
    ).catch(async (err: unknown) => {
      throw await this.explain(token, err);
    });
    return this.accept(token, decoded);
  }

  /**
   * The caller of a token verified before and not expired since, or undefined. Throws TokenError when the
   * token's client has been revoked since.
   */
  cached(token: string): Caller | undefined {
    const hit = this.verified.get(token);
    if (!hit) return undefined;
    if (hit.expiresAt > Date.now()) {
      if (this.denyList.refuses(hit.caller.clientId, hit.iat)) {
        this.verified.delete(token);
        throw new TokenError(REVOKED_TOKEN_MESSAGE);
      }
      return hit.caller;
    }
    this.verified.delete(token);
    return undefined;
  }

  /**
   * The key that must have signed `token` (passport-jwt's `secretOrKeyProvider`): the JOSE header is read and
   * checked first (a compact JWS, `alg` ES256, no unknown `crit` extension), then its `kid` is looked up in the
   * issuer's JWKS. Throws TokenError for a bad token, KeysUnavailableError when the key set cannot be had.
   */
  async keyFor(token: string): Promise<KeyObject> {
    const header = readHeader(token);
    try {
      return (await this.jwks(header)) as KeyObject;
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey && this.jwks.coolingDown)) throw classify(err);
    }
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS));
    try {
      return (await this.jwks(header)) as KeyObject;
    } catch (again) {
      throw classify(again);
    }
  }

  /**
   * The checks after the signature (passport-jwt's `validate`): the claims, the lifetime, the participant and
   * role, the deny-list. Remembers the token until its `exp`. Throws TokenError.
   */
  accept(token: string, decoded: DecodedToken): Caller {
    const problem = this.claimsProblem(decoded.header, decoded.payload);
    if (problem) throw new TokenError(problem);
    const payload = decoded.payload as Record<string, unknown>;
    const participantId = payload.participant_id;
    const role = payload.role;
    if (typeof participantId !== 'string' || participantId === '' || typeof role !== 'string' || !ROLES.has(role)) {
      throw new TokenError('token lacks participant_id or role');
    }
    const bound = certificateBinding(payload.cnf);
    if (bound === null) throw new TokenError('token claim "cnf" is not acceptable (invalid)');
    const caller: Caller = {
      participantId,
      role: role as Caller['role'],
      clientId: typeof payload.client_id === 'string' ? payload.client_id : String(payload.sub),
      name: typeof payload.name === 'string' ? payload.name : undefined,
      ...(bound !== undefined ? { certificateThumbprint: bound } : {}),
    };
    const iat = payload.iat as number;
    if (this.denyList.refuses(caller.clientId, iat)) throw new TokenError(REVOKED_TOKEN_MESSAGE);
    if (this.verified.size >= TokenVerifier.CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { caller, iat, expiresAt: (payload.exp as number) * 1000 });
    return caller;
  }

  /**
   * Why passport-jwt refused a token, as a TokenError (401) or KeysUnavailableError (503). `keyFor`'s errors
   * pass as they are; a refusal of the JWT library (jsonwebtoken's errors, or whatever its signature step throws
   * on a mangled signature) is restated in this verifier's terms, by the first failing check in the order given
   * above: the library checks `exp` before `iss`, for instance, and says "jwt expired" where we say "token
   * expired".
   */
  async explain(token: string, err: unknown): Promise<TokenError | KeysUnavailableError> {
    if (err instanceof TokenError || err instanceof KeysUnavailableError) return err;
    let key: KeyObject;
    try {
      key = await this.keyFor(token);
    } catch (refused) {
      return classify(refused) as TokenError | KeysUnavailableError;
    }
    const [h, p, s] = token.split('.');
    if (!signatureValid(`${h}.${p}`, s, key)) return new TokenError('token signature is invalid');
    const problem = this.claimsProblem(readHeader(token), decodeSegment(p));
    if (problem) return new TokenError(problem);
    // the library refused what our checks accept (a second boundary passed between its clock and ours)
    const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
    if (name === 'TokenExpiredError') return new TokenError('token expired');
    if (name === 'NotBeforeError') return new TokenError('token claim "nbf" is not acceptable (check_failed)');
    return new TokenError('token is invalid');
  }

  /** The first failing check after the signature (undefined when there is none). */
  private claimsProblem(header: Record<string, unknown>, payload: unknown): string | undefined {
    if (Array.isArray(header.crit) && header.crit.includes('b64') && header.b64 === false) return 'token is malformed';
    if (!isPlainObject(payload)) return 'token is malformed';
    if (typeof header.typ !== 'string' || normaliseTyp(header.typ) !== TYP) return notAcceptable('typ', 'check_failed');
    for (const claim of REQUIRED_CLAIMS) if (!(claim in payload)) return notAcceptable(claim, 'missing');
    if (payload.iss !== this.opts.issuer) return notAcceptable('iss', 'check_failed');
    const aud = payload.aud;
    if (!(aud === this.opts.audience || (Array.isArray(aud) && aud.includes(this.opts.audience)))) return notAcceptable('aud', 'check_failed');
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number') return notAcceptable('iat', 'invalid');
    if (payload.nbf !== undefined) {
      if (typeof payload.nbf !== 'number') return notAcceptable('nbf', 'invalid');
      if (payload.nbf > now + this.clockTolerance) return notAcceptable('nbf', 'check_failed');
    }
    if (typeof payload.exp !== 'number') return notAcceptable('exp', 'invalid');
    if (payload.exp <= now - this.clockTolerance) return 'token expired';
    // the lifetime: iat not in the future beyond the skew; exp within the token lifetime (plus skew) of iat and of now
    if (payload.iat > now + this.skew) return 'token claim "iat" is in the future';
    if (payload.exp - payload.iat > this.ttl + this.skew) return 'token claim "exp" is further from "iat" than the token lifetime';
    if (payload.exp > now + this.ttl + this.skew) return 'token claim "exp" is further in the future than the token lifetime';
    return undefined;
  }
}

/**
 * RFC 8705 3.1: the `x5t#S256` of a certificate-bound token's `cnf`; undefined when the token has no `cnf`, null when
 * its `cnf` is not one this verifier understands (such a token is refused: it must not be taken as unbound).
 */
function certificateBinding(cnf: unknown): string | undefined | null {
  if (cnf === undefined) return undefined;
  if (!isPlainObject(cnf)) return null;
  const thumbprint = cnf['x5t#S256'];
  return typeof thumbprint === 'string' && /^[A-Za-z0-9_-]{43}$/.test(thumbprint) ? thumbprint : null;
}

const notAcceptable = (claim: string, reason: 'missing' | 'check_failed' | 'invalid') => `token claim "${claim}" is not acceptable (${reason})`;
const normaliseTyp = (typ: string) => typ.toLowerCase().replace(/^application\//, '');

/** A plain JSON object (not an array, null or another value). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Object]';
}

/**
 * The JOSE header of a compact JWS, checked before any key is looked up: a JSON object; `crit`, when present,
 * naming only `b64` (RFC 7515: an extension we do not understand refuses the token), and `b64` then a boolean;
 * `alg` ES256.
 */
function readHeader(token: string): ProtectedHeaderParameters {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new TokenError('token is malformed');
  }
  const crit: unknown = header.crit;
  if (crit !== undefined) {
    if (!Array.isArray(crit) || crit.length === 0 || crit.some((p) => typeof p !== 'string' || p === '')) throw new TokenError('token is malformed');
    for (const parameter of crit as string[]) {
      if (parameter !== 'b64') throw new TokenError('token uses an unsupported algorithm');
      if (header.b64 === undefined) throw new TokenError('token is malformed');
    }
    if (typeof header.b64 !== 'boolean') throw new TokenError('token is malformed');
  }
  if (typeof header.alg !== 'string' || header.alg === '') throw new TokenError('token is malformed');
  if (header.alg !== ALGORITHM) throw new TokenError('token algorithm is not allowed');
  return header;
}

/** A JWS segment's JSON (undefined when it is not JSON). */
function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(base64url.decode(segment)));
  } catch {
    return undefined;
  }
}

function signatureValid(input: string, signature: string, key: KeyObject): boolean {
  try {
    return verifySignature('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, base64url.decode(signature));
  } catch {
    return false;
  }
}

/** TokenError (401) for a bad token; KeysUnavailableError (503) when the key set could not be had. */
function classify(err: unknown): Error {
  if (err instanceof TokenError || err instanceof KeysUnavailableError) return err;
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid)
    return new KeysUnavailableError(`could not fetch the signing keys: ${err.message}`);
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

/** The key set's refusals (the key lookup is the only jose step left). */
function describe(err: errors.JOSEError): string {
  if (err instanceof errors.JWKSNoMatchingKey) return 'token was not signed by a known key';
  if (err instanceof errors.JWKSMultipleMatchingKeys) return 'token does not name its signing key (kid)';
  if (err instanceof errors.JOSENotSupported) return 'token uses an unsupported algorithm';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return 'token is malformed';
  return 'token is invalid';
}
