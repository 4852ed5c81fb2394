import type { KeyObject } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import { SecretOrKeyProvider, Strategy } from 'passport-jwt';
import type { Caller } from './caller';
import { DecodedToken, TokenVerifier } from './token-verifier';

/** The request as the strategy reads it (Fastify's, through Nest). */
export interface TokenRequest {
  headers: Record<string, string | string[] | undefined>;
}

const BEARER = /^bearer\s+/i;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/**
 * The token of an `Authorization` header, or why there is none: `Authorization: <token>` (the spec's form) and
 * `Authorization: Bearer <token>` (any case, any whitespace around) are both taken; the token must look like a
 * compact JWS.
 */
export function readAuthorization(header: string | string[] | undefined): { token: string } | { refusal: string } {
  const value = typeof header === 'string' ? header.trim() : '';
  if (value === '') return { refusal: 'missing Authorization header' };
  const token = BEARER.test(value) ? value.replace(BEARER, '') : value;
  if (!COMPACT_JWS.test(token)) return { refusal: 'Authorization header does not hold a JWT' };
  return { token };
}

/** passport-jwt's extractor: both header forms; null (passport-jwt's "No auth token") when there is no JWT. */
export function tokenFromRequest(req: TokenRequest): string | null {
  const read = readAuthorization(req.headers.authorization);
  return 'token' in read ? read.token : null;
}

let instances = 0;

/**
 * The passport-jwt strategy of one guarded app (docs: NestJS "Passport", JWT with a key provider):
 * `secretOrKeyProvider` finds the signing key by `kid` in the issuer's JWKS (TokenVerifier.keyFor: cached,
 * refetched on an unknown kid), passport-jwt checks the signature (ES256 only), `iss`, `aud` and `exp`/`nbf`,
 * and `validate` checks the rest (typ, claims, lifetime, role, deny-list) and answers the Caller.
 *
 * A token verified before never reaches the strategy until its `exp`: JwtAuthGuard answers it from the
 * verified-token cache (the signature check is the costliest step of a guarded request), the deny-list still
 * consulted; `validate` fills that cache.
 *
 * passport keeps one registry of strategies per process, and a process may hold several guarded apps (the
 * test stacks run platform, search and gis side by side, each with its own audience): a strategy registered
 * under the shared name `jwt` would serve whichever app registered last. So each strategy is registered under
 * a name of its own (`name`), which its guard asks for, and unregistered when its app closes.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') implements OnModuleDestroy {
  constructor(@Inject(TokenVerifier) private readonly verifier: TokenVerifier) {
    // jsonwebtoken takes the KeyObject as it is (passport-jwt's typings only name PEM strings and buffers)
    const keyProvider: (req: TokenRequest, token: string, done: (err: unknown, key?: KeyObject) => void) => void = (_req, token, done) => {
      verifier.keyFor(token).then(
        (key) => done(null, key),
        (err: unknown) => done(err),
      );
    };
    super({
      jwtFromRequest: tokenFromRequest,
      secretOrKeyProvider: keyProvider as SecretOrKeyProvider,
      algorithms: verifier.jwtOptions.algorithms,
      issuer: verifier.jwtOptions.issuer,
      audience: verifier.jwtOptions.audience,
      ignoreExpiration: verifier.jwtOptions.ignoreExpiration,
      jsonWebTokenOptions: verifier.jwtOptions.jsonWebTokenOptions,
      passReqToCallback: true,
    });
    passport.unuse('jwt');
    instances += 1;
    this.name = `jwt:${verifier.jwtOptions.audience}#${instances}`;
    passport.use(this.name, this);
  }

  /** After passport-jwt's checks: the rest (TokenVerifier.accept). */
  validate(req: TokenRequest, decoded: DecodedToken): Caller {
    return this.verifier.accept(tokenFromRequest(req)!, decoded);
  }

  onModuleDestroy(): void {
    passport.unuse(this.name);
  }
}
