import { randomUUID } from 'node:crypto';
import { lastValueFrom } from 'rxjs';
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { BaseRpcContext, CustomTransportStrategy, EventPattern, MessagePattern, Payload, Server } from '@nestjs/microservices';
import { exportJWK, KeyLike } from 'jose';
import passport from 'passport';
import pino from 'pino';
import { createHttpApp, newServiceContext, Public } from '@dtp/service-kit';
import { GuardedApp, startGuardedApp } from '@dtp/testing';
import { AuthGuardModule, Caller, CurrentCaller, JwtAuthGuard, Roles } from '../src';
import { Answer, answerOf, es256Pair, signJson, startTestIssuer, TestIssuer, tokenBattery } from './token-battery';

/**
 * The guard on @nestjs/passport + passport-jwt, against a hand-made issuer (test/token-battery.ts): every answer
 * as the jose-based guard gave it, the key set refetched for an unknown kid, 503 when the keys cannot be had,
 * the verified-token cache, several guarded apps in one process, and microservice handlers let through.
 */
const ISS = 'http://auth.passport.test';
const AUD = 'http://platform.passport.test';
const KEYS_UNAVAILABLE = "tokens cannot be checked right now: the issuer's signing keys are unavailable; retry later";

/** The battery's caller, as /probe/any answers it. */
const CALLER = { participantId: '0190f0c2-5a1e-7c3b-9d4e-0000000000aa', role: 'producer', clientId: 'dtp_client_battery' };

/**
 * What the jose-based guard answered each token of the battery (recorded from it before the move to passport-jwt):
 * the status and, for a refusal, the message.
 */
const BEFORE: Record<string, [number, string | null]> = {
  'valid, bare': [200, null],
  'valid, Bearer': [200, null],
  'valid, bearer lower case and spaces': [200, null],
  'typ application/at+jwt (normalised)': [200, null],
  'typ AT+JWT (case)': [200, null],
  'aud array holding ours': [200, null],
  'exp 3 s ago (within tolerance)': [200, null],
  'nbf 3 s ahead (within tolerance)': [200, null],
  'crit b64 true': [200, null],
  'role forbidden on @Roles route': [403, 'role "retailer" may not perform this operation; allowed: producer, manufacturer'],
  'role allowed on @Roles route': [200, null],
  'no header': [401, 'missing Authorization header'],
  'empty header': [401, 'missing Authorization header'],
  'blank header': [401, 'missing Authorization header'],
  'Bearer alone': [401, 'Authorization header does not hold a JWT'],
  'Bearer and no JWT': [401, 'Authorization header does not hold a JWT'],
  Basic: [401, 'Authorization header does not hold a JWT'],
  'Token scheme': [401, 'Authorization header does not hold a JWT'],
  'two segments': [401, 'Authorization header does not hold a JWT'],
  'four segments': [401, 'Authorization header does not hold a JWT'],
  'trailing word': [401, 'Authorization header does not hold a JWT'],
  quotes: [401, 'Authorization header does not hold a JWT'],
  'garbage segments': [401, 'token is malformed'],
  'header not JSON': [401, 'token is malformed'],
  'header an array': [401, 'token is malformed'],
  'header null': [401, 'token is malformed'],
  'header without alg': [401, 'token is malformed'],
  'alg a number': [401, 'token is malformed'],
  'alg empty': [401, 'token is malformed'],
  'alg none': [401, 'token algorithm is not allowed'],
  'alg none, at+jwt and the real kid': [401, 'token algorithm is not allowed'],
  'HS256 with the public JWK as secret': [401, 'token algorithm is not allowed'],
  'HS256 with the public x as secret': [401, 'token algorithm is not allowed'],
  'RS256 named': [401, 'token algorithm is not allowed'],
  'ES384 named': [401, 'token algorithm is not allowed'],
  'crit unknown': [401, 'token uses an unsupported algorithm'],
  'crit empty': [401, 'token is malformed'],
  'crit not an array': [401, 'token is malformed'],
  'crit b64 missing': [401, 'token is malformed'],
  'crit b64 not boolean': [401, 'token is malformed'],
  'crit b64 false': [401, 'token is malformed'],
  'crit unknown and alg HS256': [401, 'token uses an unsupported algorithm'],
  'unknown kid': [401, 'token was not signed by a known key'],
  'no kid, stranger key': [401, 'token signature is invalid'],
  'no kid, the real key': [200, null],
  'kid not a string': [200, null],
  'real kid, stranger key': [401, 'token signature is invalid'],
  'tampered payload': [401, 'token signature is invalid'],
  'flipped signature bit': [401, 'token signature is invalid'],
  'short signature': [401, 'token signature is invalid'],
  'empty signature': [401, 'token signature is invalid'],
  'empty payload, bad signature': [401, 'token signature is invalid'],
  'empty payload, signed': [401, 'token is malformed'],
  'payload not JSON, signed': [401, 'token is malformed'],
  'payload not JSON, typ JWT, signed': [401, 'token is malformed'],
  'payload not JSON, typ JWT, bad signature': [401, 'token signature is invalid'],
  'payload an array, signed': [401, 'token is malformed'],
  'payload a string, signed': [401, 'token is malformed'],
  'payload null, signed': [401, 'token is malformed'],
  'typ JWT': [401, 'token claim "typ" is not acceptable (check_failed)'],
  'typ missing': [401, 'token claim "typ" is not acceptable (check_failed)'],
  'typ a number': [401, 'token claim "typ" is not acceptable (check_failed)'],
  'missing iss': [401, 'token claim "iss" is not acceptable (missing)'],
  'missing aud': [401, 'token claim "aud" is not acceptable (missing)'],
  'missing exp': [401, 'token claim "exp" is not acceptable (missing)'],
  'missing iat': [401, 'token claim "iat" is not acceptable (missing)'],
  'missing sub': [401, 'token claim "sub" is not acceptable (missing)'],
  'missing jti': [401, 'token claim "jti" is not acceptable (missing)'],
  'missing exp and iat': [401, 'token claim "iat" is not acceptable (missing)'],
  'iss wrong': [401, 'token claim "iss" is not acceptable (check_failed)'],
  'iss null': [401, 'token claim "iss" is not acceptable (check_failed)'],
  'aud wrong': [401, 'token claim "aud" is not acceptable (check_failed)'],
  'aud array without ours': [401, 'token claim "aud" is not acceptable (check_failed)'],
  'aud a number': [401, 'token claim "aud" is not acceptable (check_failed)'],
  'iat a string': [401, 'token claim "iat" is not acceptable (invalid)'],
  'iat null': [401, 'token claim "iat" is not acceptable (invalid)'],
  'nbf a string': [401, 'token claim "nbf" is not acceptable (invalid)'],
  'nbf in the future': [401, 'token claim "nbf" is not acceptable (check_failed)'],
  'exp a string': [401, 'token claim "exp" is not acceptable (invalid)'],
  'exp null': [401, 'token claim "exp" is not acceptable (invalid)'],
  expired: [401, 'token expired'],
  'expired 6 s ago': [401, 'token expired'],
  'iat in the future': [401, 'token claim "iat" is in the future'],
  'exp far from iat': [401, 'token claim "exp" is further from "iat" than the token lifetime'],
  'exp far from now': [401, 'token claim "exp" is further in the future than the token lifetime'],
  'exp a year ahead': [401, 'token claim "exp" is further from "iat" than the token lifetime'],
  'participant_id missing': [401, 'token lacks participant_id or role'],
  'participant_id empty': [401, 'token lacks participant_id or role'],
  'participant_id a number': [401, 'token lacks participant_id or role'],
  'role admin': [401, 'token lacks participant_id or role'],
  'role missing': [401, 'token lacks participant_id or role'],
  'client_id missing (sub stands in)': [200, null],
  'typ JWT and expired': [401, 'token claim "typ" is not acceptable (check_failed)'],
  'iss wrong and expired': [401, 'token claim "iss" is not acceptable (check_failed)'],
  'iss missing and aud wrong': [401, 'token claim "iss" is not acceptable (missing)'],
  'aud wrong and iss wrong': [401, 'token claim "iss" is not acceptable (check_failed)'],
  'aud wrong and nbf in the future': [401, 'token claim "aud" is not acceptable (check_failed)'],
  'nbf in the future and expired': [401, 'token claim "nbf" is not acceptable (check_failed)'],
  'iat a string and expired': [401, 'token claim "iat" is not acceptable (invalid)'],
  'exp missing and iss wrong': [401, 'token claim "exp" is not acceptable (missing)'],
  'jti missing and expired': [401, 'token claim "jti" is not acceptable (missing)'],
  'expired and role admin': [401, 'token expired'],
  'iat in the future and role admin': [401, 'token claim "iat" is in the future'],
  'stranger key and typ JWT': [401, 'token signature is invalid'],
  'stranger key and expired': [401, 'token signature is invalid'],
  'unknown kid and alg HS256': [401, 'token algorithm is not allowed'],
  'crit b64 false, typ JWT': [401, 'token is malformed'],
};

const json = expect.stringContaining('application/json');

/** The whole answer expected for a status and message (as `answerOf` reads it). */
function expected(status: number, message: string | null): Answer {
  if (status === 200) return { status, contentType: json, challenge: null, retryAfter: null, body: CALLER };
  if (status === 403) return { status, contentType: json, challenge: null, retryAfter: null, body: { message } };
  return {
    status,
    contentType: json,
    challenge: `Bearer error="invalid_token", error_description="${message!.replace(/"/g, "'")}"`,
    retryAfter: null,
    body: { message, error: 'invalid_token' },
  };
}

const unavailable: Answer = {
  status: 503,
  contentType: json,
  challenge: null,
  retryAfter: '5',
  body: { message: KEYS_UNAVAILABLE, request_id: expect.any(String) },
};

const call = (app: GuardedApp, authorization: string | undefined, path = '/probe/any') =>
  fetch(`${app.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });

type Pair = { publicKey: KeyLike; privateKey: KeyLike };

function claims(over: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISS,
    aud: AUD,
    sub: 'dtp_client_battery',
    iat: now,
    exp: now + 600,
    jti: randomUUID(),
    client_id: 'dtp_client_battery',
    participant_id: CALLER.participantId,
    role: 'producer',
    ...over,
  };
}
const tokenOf = (kid: string | undefined, key: KeyLike, header: Record<string, unknown> = {}, over: Record<string, unknown> = {}) =>
  signJson({ alg: 'ES256', typ: 'at+jwt', ...(kid ? { kid } : {}), ...header }, claims(over), key);

describe('the guard on passport-jwt', () => {
  let main: Pair;
  let stranger: Pair;
  let issuer: TestIssuer;
  let app: GuardedApp;

  beforeAll(async () => {
    [main, stranger] = await Promise.all([es256Pair(), es256Pair()]);
    issuer = await startTestIssuer([{ kid: 'k1', key: main.publicKey }]);
    app = await startGuardedApp({ authUrl: issuer.url, audience: AUD, issuer: ISS });
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.close();
  });

  it('answers every token of the battery as the jose-based guard did: status, JSON body, challenge, headers', async () => {
    const battery = tokenBattery({
      kid: 'k1',
      key: main.privateKey,
      stranger: stranger.privateKey,
      publicJwk: await exportJWK(main.publicKey),
      issuer: ISS,
      audience: AUD,
    });
    expect(battery.map((t) => t.name).sort()).toEqual(Object.keys(BEFORE).sort());
    const actual: Record<string, Answer> = {};
    const wanted: Record<string, Answer> = {};
    for (const t of battery) {
      actual[t.name] = await answerOf(await call(app, t.header, t.path));
      wanted[t.name] = expected(...BEFORE[t.name]);
    }
    expect(actual).toEqual(wanted);
  });

  it('takes both header forms: the bare token (the spec) and Bearer, any case', async () => {
    const token = tokenOf('k1', main.privateKey);
    for (const header of [token, `Bearer ${token}`, `bearer ${token}`, ` BEARER\t${token} `]) {
      expect(await answerOf(await call(app, header))).toEqual(expected(200, null));
    }
    for (const header of [`Bearer  Bearer ${token}`, `Bearer: ${token}`, `JWT ${token}`]) {
      expect(await answerOf(await call(app, header))).toEqual(expected(401, 'Authorization header does not hold a JWT'));
    }
  });

  it('refuses a typ other than at+jwt, signed by the real key', async () => {
    for (const typ of ['JWT', 'jwt', 'application/jwt', 'at+JWT2', '']) {
      expect(await answerOf(await call(app, tokenOf('k1', main.privateKey, { typ })))).toEqual(
        expected(401, 'token claim "typ" is not acceptable (check_failed)'),
      );
    }
  });

  it('refuses alg none and HS256 (the public key as the HMAC secret), and never asks the key set for them', async () => {
    const jwk = await exportJWK(main.publicKey);
    const forged = tokenBattery({ kid: 'k1', key: main.privateKey, stranger: stranger.privateKey, publicJwk: jwk, issuer: ISS, audience: AUD }).filter((t) =>
      /^(alg none|HS256)/.test(t.name),
    );
    expect(forged).toHaveLength(4);
    const fetches = issuer.fetches;
    for (const t of forged) expect(await answerOf(await call(app, t.header))).toEqual(expected(401, 'token algorithm is not allowed'));
    expect(issuer.fetches).toBe(fetches);
  });

  it('answers a token verified before from the cache: no key lookup, even with the issuer away', async () => {
    const token = tokenOf('k1', main.privateKey);
    expect((await call(app, token)).status).toBe(200);
    issuer.broken = { status: 500, body: '{}' };
    try {
      expect(await answerOf(await call(app, token))).toEqual(expected(200, null));
      // a new token of the known key: the cached key set; of an unknown key: the key set cannot be had
      expect(await answerOf(await call(app, tokenOf('k1', main.privateKey)))).toEqual(expected(200, null));
      expect(await answerOf(await call(app, tokenOf('k-new', stranger.privateKey)))).toEqual(unavailable);
    } finally {
      issuer.broken = null;
    }
  });

  it('keeps the audience of each guarded app when several run in one process (one passport strategy each)', async () => {
    const other = await startGuardedApp({ authUrl: issuer.url, audience: 'http://search.passport.test', issuer: ISS });
    const names = () => Object.keys((passport as unknown as { _strategies: Record<string, unknown> })._strategies).filter((n) => n.startsWith('jwt'));
    try {
      expect(names()).toEqual(
        [`jwt:${AUD}`, 'jwt:http://search.passport.test'].map((n) => expect.stringMatching(new RegExp(`^${n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}#\\d+$`))),
      );
      const token = tokenOf('k1', main.privateKey);
      expect((await call(app, token)).status).toBe(200);
      expect(await answerOf(await call(other, token))).toEqual(expected(401, 'token claim "aud" is not acceptable (check_failed)'));
      const searchToken = tokenOf('k1', main.privateKey, {}, { aud: 'http://search.passport.test' });
      expect((await call(other, searchToken)).status).toBe(200);
      expect(await answerOf(await call(app, searchToken))).toEqual(expected(401, 'token claim "aud" is not acceptable (check_failed)'));
    } finally {
      await other.close();
    }
    // the closed app's strategy is gone; this one still works
    expect(names().some((n) => n.includes('search.passport.test'))).toBe(false);
    expect((await call(app, tokenOf('k1', main.privateKey))).status).toBe(200);
  });

  it('refuses a token without kid when the key set holds several candidate keys', async () => {
    const two = await startTestIssuer([{ key: main.publicKey }, { key: stranger.publicKey }]);
    const probe = await startGuardedApp({ authUrl: two.url, audience: AUD, issuer: ISS });
    try {
      expect(await answerOf(await call(probe, tokenOf(undefined, main.privateKey)))).toEqual(expected(401, 'token does not name its signing key (kid)'));
    } finally {
      await probe.close();
      await two.close();
    }
  });
});

describe('the guard on passport-jwt: the key set', () => {
  let a: Pair;
  let b: Pair;
  let c: Pair;
  let issuer: TestIssuer;
  let app: GuardedApp;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([es256Pair(), es256Pair(), es256Pair()]);
    issuer = await startTestIssuer([{ kid: 'a', key: a.publicKey }]);
    app = await startGuardedApp({ authUrl: issuer.url, audience: AUD, issuer: ISS });
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.close();
  });

  it('fetches the key set once, then refetches it for an unknown kid (at most once a second) and accepts a newly published key', async () => {
    expect(issuer.fetches).toBe(0); // fetched on the first token, not at start
    expect((await call(app, tokenOf('a', a.privateKey))).status).toBe(200);
    expect((await call(app, tokenOf('a', a.privateKey))).status).toBe(200);
    expect(issuer.fetches).toBe(1);

    // a rotation: b is published; its first token makes the guard refetch (waiting out the second if need be)
    issuer.published = [
      { kid: 'a', key: a.publicKey },
      { kid: 'b', key: b.publicKey },
    ];
    expect(await answerOf(await call(app, tokenOf('b', b.privateKey)))).toEqual(expected(200, null));
    expect(issuer.fetches).toBe(2);
    expect((await call(app, tokenOf('a', a.privateKey))).status).toBe(200);
    expect((await call(app, tokenOf('b', b.privateKey))).status).toBe(200);
    expect(issuer.fetches).toBe(2);

    // unknown kids, ten at once: refused, and the key set is fetched at most twice (now, and a second later)
    const before = issuer.fetches;
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(app, tokenOf('nobody', c.privateKey)).then(answerOf)));
    for (const answer of answers) expect(answer).toEqual(expected(401, 'token was not signed by a known key'));
    expect(issuer.fetches - before).toBeGreaterThanOrEqual(1);
    expect(issuer.fetches - before).toBeLessThanOrEqual(2);

    // a key published within the second after a refetch: its token waits for the next refetch, then passes
    await call(app, tokenOf('nobody', c.privateKey)).then(answerOf);
    issuer.published = [...issuer.published, { kid: 'c', key: c.publicKey }];
    const fetched = issuer.fetches;
    expect(await answerOf(await call(app, tokenOf('c', c.privateKey)))).toEqual(expected(200, null));
    expect(issuer.fetches).toBe(fetched + 1);

    // a key gone from the key set: tokens of a key the guard still holds keep working until the set is refetched
    issuer.published = [{ kid: 'c', key: c.publicKey }];
    expect((await call(app, tokenOf('a', a.privateKey))).status).toBe(200);
  });

  it("answers 503 with Retry-After when the key set cannot be had (not the caller's fault); header faults stay 401", async () => {
    const good = (kid: string, key: KeyLike) => tokenOf(kid, key);
    const hs256 = (token: string) =>
      `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: 'k' })).toString('base64url')}.${token.split('.').slice(1).join('.')}`;
    const privateJwk = { ...(await exportJWK(a.privateKey)), kid: 'k', alg: 'ES256' };
    // (a key set that parses, with a private key in it, is kept like any other until it is refetched: no recovery)
    const broken = [
      { status: 500, body: '{}', recovers: true },
      { status: 200, body: '<html>', recovers: true },
      { status: 200, body: '{"x":1}', recovers: true },
      { status: 200, body: '{"keys":"x"}', recovers: true },
      { status: 200, body: JSON.stringify({ keys: [privateJwk] }), recovers: false },
    ];
    for (const { recovers, ...answer } of broken) {
      const away = await startTestIssuer([{ kid: 'k', key: a.publicKey }]);
      away.broken = answer;
      const probe = await startGuardedApp({ authUrl: away.url, audience: AUD, issuer: ISS });
      try {
        const token = good('k', a.privateKey);
        expect({ broken: answer, answer: await answerOf(await call(probe, token)) }).toEqual({ broken: answer, answer: unavailable });
        expect(await answerOf(await call(probe, hs256(token)))).toEqual(expected(401, 'token algorithm is not allowed'));
        expect(await answerOf(await call(probe, 'aaa.bbb.ccc'))).toEqual(expected(401, 'token is malformed'));
        expect(await answerOf(await call(probe, undefined, '/probe/open'))).toMatchObject({ status: 200, body: { ok: true } });
        // the issuer back: the next token is checked
        away.broken = null;
        expect(await answerOf(await call(probe, token))).toEqual(recovers ? expected(200, null) : unavailable);
      } finally {
        await probe.close();
        await away.close();
      }
    }
    const orphan = await startGuardedApp({ authUrl: 'http://127.0.0.1:9', audience: AUD, issuer: ISS });
    try {
      expect(await answerOf(await call(orphan, good('k', a.privateKey)))).toEqual(unavailable);
    } finally {
      await orphan.close();
    }
  });
});

/** A microservice transport inside the test: messages and events handed straight to the handlers. */
class InProcessServer extends Server implements CustomTransportStrategy {
  listen(callback: () => void): void {
    callback();
  }
  close(): void {}
  on(): void {}
  unwrap<T>(): T {
    throw new Error('no underlying server');
  }
  async emit(pattern: string, data: unknown): Promise<void> {
    await this.handleEvent(pattern, { pattern, data }, new BaseRpcContext([]));
  }
  async request(pattern: string, data: unknown): Promise<unknown> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) throw new Error(`no handler for ${pattern}`);
    return lastValueFrom(this.transformToObservable(await handler(data, new BaseRpcContext([]))));
  }
}

@Controller('mixed')
class MixedController {
  static events: unknown[] = [];

  @EventPattern('probe.happened')
  happened(@Payload() data: unknown) {
    MixedController.events.push(data);
  }

  @MessagePattern('probe.ask')
  ask(@Payload() data: unknown) {
    return { answered: data };
  }

  @Roles('grading_lab')
  @MessagePattern('probe.ask-labs')
  askLabs(@Payload() data: unknown) {
    return { labs: data };
  }

  @Get('mine')
  mine(@CurrentCaller() caller: Caller) {
    return caller;
  }

  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }
}

describe('the guard and microservice handlers in the same app', () => {
  let keys: Pair;
  let issuer: TestIssuer;
  let app: INestApplication;
  let url: string;
  const transport = new InProcessServer();

  beforeAll(async () => {
    keys = await es256Pair();
    issuer = await startTestIssuer([{ kid: 'k1', key: keys.publicKey }]);
    @Module({ imports: [AuthGuardModule.forRoot({ issuer: ISS, audience: AUD, jwksUrl: issuer.jwksUrl })], controllers: [MixedController] })
    class MixedModule {}
    const nest = await createHttpApp({
      ctx: newServiceContext('mixed', pino({ level: 'silent' })),
      module: MixedModule,
      docs: { title: 'mixed', description: 'mixed', version: '0' },
    });
    // the app's global enhancers (the guard among them) apply to the microservice's handlers too
    nest.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
    await nest.startAllMicroservices();
    await nest.listen({ port: 0, host: '127.0.0.1' });
    const address = nest.getHttpServer().address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    app = nest;
  });

  afterAll(async () => {
    await app?.close();
    await issuer?.close();
  });

  it('lets events and messages through (no token, no HTTP request), @Roles or not', async () => {
    await transport.emit('probe.happened', { n: 1 });
    expect(MixedController.events).toEqual([{ n: 1 }]);
    await expect(transport.request('probe.ask', { q: 'x' })).resolves.toEqual({ answered: { q: 'x' } });
    await expect(transport.request('probe.ask-labs', { q: 'y' })).resolves.toEqual({ labs: { q: 'y' } });
  });

  it("still guards the same app's HTTP routes", async () => {
    expect(await answerOf(await fetch(`${url}/mixed/mine`))).toEqual(expected(401, 'missing Authorization header'));
    const res = await fetch(`${url}/mixed/mine`, { headers: { authorization: `Bearer ${tokenOf('k1', keys.privateKey)}` } });
    expect(await answerOf(res)).toEqual(expected(200, null));
    expect((await fetch(`${url}/mixed/open`)).status).toBe(200);
  });

  it("canActivate is true for rpc and ws contexts, whatever the handler's metadata", async () => {
    const guard = app.get(JwtAuthGuard);
    for (const type of ['rpc', 'ws'] as const) {
      const ctx = new ExecutionContextHost([{ some: 'data' }, new BaseRpcContext([])], MixedController, MixedController.prototype.askLabs);
      ctx.setType(type);
      await expect(guard.canActivate(ctx)).resolves.toBe(true);
    }
  });
});
