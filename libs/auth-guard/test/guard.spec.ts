import { createSecretKey, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { decodeProtectedHeader, generateKeyPair, importJWK, JWK, KeyLike, SignJWT, UnsecuredJWT } from 'jose';
import { runCli } from '../../../apps/auth/src/cli/commands';
import { Controller, Get, Module } from '@nestjs/common';
import pino from 'pino';
import { createHttpApp, newServiceContext } from '@dtp/service-kit';
import { AuthGuardModule } from '../src/auth-guard.module';
import { Caller, CurrentCaller } from '../src/caller';
import { TokenVerifier } from '../src/token-verifier';
import { startTestStack } from '@dtp/test-stack';
import {
  GuardedApp,
  onboard,
  participantWithToken,
  ParticipantWithToken,
  startGuardedApp,
  TEST_AUDIENCES,
  TEST_ISSUER,
  TestStack,
  tokenFor,
} from '@dtp/testing';

type Json = Record<string, unknown>;

@Controller('probe')
class LifetimeProbeController {
  @Get('any')
  any(@CurrentCaller() caller: Caller) {
    return caller;
  }
}

/** A guarded app like startGuardedApp's, but told the issuer's token lifetime. */
async function startLifetimeProbe(authUrl: string, tokenTtlSeconds: number): Promise<GuardedApp> {
  @Module({
    imports: [
      AuthGuardModule.forRoot({ issuer: TEST_ISSUER, audience: TEST_AUDIENCES.platform, jwksUrl: `${authUrl}/.well-known/jwks.json`, tokenTtlSeconds }),
    ],
    controllers: [LifetimeProbeController],
  })
  class LifetimeProbeModule {}

  const ctx = newServiceContext('lifetime-probe', pino({ level: 'silent' }));
  const app = await createHttpApp({ ctx, module: LifetimeProbeModule, docs: { title: 'probe', description: 'lifetime probe', version: '0' } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

describe('@dtp/auth-guard against the real auth service', () => {
  let stack: TestStack;
  let platform: GuardedApp;
  let search: GuardedApp;
  let gis: GuardedApp;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_CACHE_SECONDS: '0' } } });
    const authUrl = stack.urls.auth!;
    [platform, search, gis] = await Promise.all([
      startGuardedApp({ authUrl, audience: TEST_AUDIENCES.platform }),
      startGuardedApp({ authUrl, audience: TEST_AUDIENCES.search }),
      startGuardedApp({ authUrl, audience: TEST_AUDIENCES.gis }),
    ]);
    producer = await participantWithToken(stack, 'producer', 'platform', { name: 'Guard Test Mining' });
  });

  afterAll(async () => {
    await Promise.all([platform?.close(), search?.close(), gis?.close()]);
    await stack?.close();
  });

  const call = (app: GuardedApp, authorization?: string, path = '/probe/any') =>
    fetch(`${app.url}${path}`, { headers: authorization === undefined ? {} : { authorization } });

  async function expect401(res: Response, message: string | RegExp): Promise<void> {
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ message: expect.any(String), error: 'invalid_token' });
    expect(body.message).toMatch(message);
  }

  /** The issuer's active private key, read from its database (to forge otherwise-valid tokens). */
  async function activeKey(): Promise<{ kid: string; key: KeyLike }> {
    const client = new Client({ connectionString: stack.databases.auth });
    await client.connect();
    try {
      const { rows } = await client.query<{ kid: string; private_jwk: string }>(`SELECT kid, private_jwk FROM signing_keys WHERE retired_at IS NULL`);
      return { kid: rows[0].kid, key: (await importJWK(JSON.parse(rows[0].private_jwk) as JWK, 'ES256')) as KeyLike };
    } finally {
      await client.end();
    }
  }

  const claims = (overrides: Json = {}): Json => ({
    client_id: producer.client_id,
    participant_id: producer.participant_id,
    role: 'producer',
    ...overrides,
  });

  async function forge(opts: {
    key: KeyLike;
    kid?: string;
    alg?: string;
    typ?: string;
    payload?: Json;
    iss?: string;
    aud?: string;
    exp?: number;
    iat?: number;
  }) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(opts.payload ?? claims())
      .setProtectedHeader({ alg: opts.alg ?? 'ES256', typ: opts.typ ?? 'at+jwt', ...(opts.kid ? { kid: opts.kid } : {}) })
      .setIssuer(opts.iss ?? TEST_ISSUER)
      .setSubject(producer.client_id)
      .setAudience(opts.aud ?? TEST_AUDIENCES.platform)
      .setIssuedAt(opts.iat ?? now)
      .setExpirationTime(opts.exp ?? now + 600)
      .setJti(randomUUID())
      .sign(opts.key);
  }

  describe('accepted', () => {
    it('takes the spec form and the Bearer form, any case', async () => {
      for (const header of [producer.token, `Bearer ${producer.token}`, `bearer ${producer.token}`, `BEARER   ${producer.token}`]) {
        const res = await call(platform, header);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ participantId: producer.participant_id, role: 'producer', clientId: producer.client_id, name: 'Guard Test Mining' });
      }
    });

    it('lets @Public routes through without a token', async () => {
      const res = await call(platform, undefined, '/probe/open');
      expect(res.status).toBe(200);
    });

    it('accepts a token forged with the real key when every claim is right (control for the cases below)', async () => {
      const { kid, key } = await activeKey();
      expect((await call(platform, await forge({ key, kid }))).status).toBe(200);
    });
  });

  describe('audience', () => {
    it('a platform token is refused by search and gis', async () => {
      await expect401(await call(search, producer.token), /aud/);
      await expect401(await call(gis, producer.token), /aud/);
    });

    it('a search token is refused by platform', async () => {
      const viewer = await participantWithToken(stack, 'non_participant', 'search');
      expect((await call(search, viewer.token)).status).toBe(200);
      await expect401(await call(platform, viewer.token), /aud/);
    });
  });

  describe('refused tokens', () => {
    it('missing or malformed Authorization header', async () => {
      await expect401(await call(platform), /missing/);
      await expect401(await call(platform, ''), /missing/);
      await expect401(await call(platform, 'Bearer'), /JWT/);
      await expect401(await call(platform, 'Bearer not-a-token'), /JWT/);
      await expect401(await call(platform, `Basic ${Buffer.from('a:b').toString('base64')}`), /JWT/);
      await expect401(await call(platform, `Token ${producer.token}`), /JWT/);
      await expect401(await call(platform, 'aaa.bbb.ccc'), /malformed|invalid/);
    });

    it('signed by another key under the real kid', async () => {
      const { kid } = await activeKey();
      const { privateKey } = await generateKeyPair('ES256');
      await expect401(await call(platform, await forge({ key: privateKey, kid })), /signature/);
    });

    it('signed by another key under an unknown kid, or with no kid', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      await expect401(await call(platform, await forge({ key: privateKey, kid: 'unknown-kid' })), /known key/);
      await expect401(await call(platform, await forge({ key: privateKey })), /signature|known key|kid/);
    });

    it('alg none', async () => {
      const unsecured = new UnsecuredJWT(claims())
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_AUDIENCES.platform)
        .setSubject(producer.client_id)
        .setIssuedAt()
        .setExpirationTime('10m')
        .setJti(randomUUID())
        .encode();
      await expect401(await call(platform, unsecured), /algorithm|malformed|invalid/);
      // with the header claiming at+jwt and the real kid
      const { kid } = await activeKey();
      const [, payload] = unsecured.split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid })).toString('base64url');
      await expect401(await call(platform, `${header}.${payload}.`), /algorithm|malformed|invalid/);
    });

    it('HS256 signed with the public key as the secret', async () => {
      const jwks = (await (await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      const { kid } = await activeKey();
      const publicJwk = jwks.keys.find((k) => k.kid === kid)!;
      for (const secret of [JSON.stringify(publicJwk), Buffer.from(publicJwk.x!, 'base64url').toString('latin1')]) {
        const key = createSecretKey(Buffer.from(secret));
        await expect401(await call(platform, await forge({ key, kid, alg: 'HS256' })), /algorithm/);
      }
    });

    it('expired (signed by the real key)', async () => {
      const { kid, key } = await activeKey();
      const now = Math.floor(Date.now() / 1000);
      await expect401(await call(platform, await forge({ key, kid, iat: now - 7200, exp: now - 3600 })), /expired/);
    });

    it('a token accepted (and remembered) while valid is refused once it expires', async () => {
      const verifier = new TokenVerifier({
        issuer: TEST_ISSUER,
        audience: TEST_AUDIENCES.platform,
        jwksUrl: `${stack.urls.auth}/.well-known/jwks.json`,
        clockToleranceSeconds: 0,
      });
      const { kid, key } = await activeKey();
      const now = Math.floor(Date.now() / 1000);
      const token = await forge({ key, kid, iat: now - 60, exp: now + 2 });
      await expect(verifier.verify(token)).resolves.toMatchObject({ participantId: producer.participant_id });
      await expect(verifier.verify(token)).resolves.toMatchObject({ participantId: producer.participant_id });
      await new Promise((r) => setTimeout(r, (now + 2) * 1000 - Date.now() + 1100));
      await expect(verifier.verify(token)).rejects.toThrow(/expired/);
    });

    it('tampered payload', async () => {
      const [h, p, s] = producer.token.split('.');
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Json;
      const tampered = Buffer.from(JSON.stringify({ ...payload, role: 'manufacturer' })).toString('base64url');
      await expect401(await call(platform, `${h}.${tampered}.${s}`), /signature/);
      const sig = Buffer.from(s, 'base64url');
      sig[0] ^= 1;
      await expect401(await call(platform, `${h}.${p}.${sig.toString('base64url')}`), /signature/);
    });

    it('wrong issuer, wrong typ, missing claims (signed by the real key)', async () => {
      const { kid, key } = await activeKey();
      await expect401(await call(platform, await forge({ key, kid, iss: 'http://evil.test' })), /iss/);
      await expect401(await call(platform, await forge({ key, kid, typ: 'JWT' })), /typ/);
      await expect401(await call(platform, await forge({ key, kid, payload: { client_id: producer.client_id, role: 'producer' } })), /participant_id/);
      await expect401(await call(platform, await forge({ key, kid, payload: claims({ role: 'admin' }) })), /role/);
    });
  });

  describe('token lifetime: iat and exp (signed by the real key)', () => {
    let strict: GuardedApp;

    beforeAll(async () => {
      // a service told the issuer's TOKEN_TTL_SECONDS (3600, as the test auth service issues)
      strict = await startLifetimeProbe(stack.urls.auth!, 3600);
    });

    afterAll(async () => {
      await strict?.close();
    });

    const at = () => Math.floor(Date.now() / 1000);

    it('accepts tokens issued by auth, and forged ones within the lifetime and skew (controls)', async () => {
      const { kid, key } = await activeKey();
      const now = at();
      expect((await call(strict, producer.token)).status).toBe(200);
      expect((await call(strict, await forge({ key, kid, iat: now, exp: now + 3600 }))).status).toBe(200);
      expect((await call(strict, await forge({ key, kid, iat: now + 30, exp: now + 30 + 3600 }))).status).toBe(200);
      expect((await call(strict, await forge({ key, kid, iat: now - 600, exp: now + 3000 }))).status).toBe(200);
    });

    it('refuses iat in the future beyond the skew', async () => {
      const { kid, key } = await activeKey();
      const now = at();
      await expect401(await call(strict, await forge({ key, kid, iat: now + 300, exp: now + 600 })), /iat.*future/);
      await expect401(await call(strict, await forge({ key, kid, iat: now + 10 * 365 * 86400, exp: now + 10 * 365 * 86400 + 60 })), /iat.*future/);
      // also on a service that was not told the TTL
      await expect401(await call(platform, await forge({ key, kid, iat: now + 300, exp: now + 600 })), /iat.*future/);
    });

    it('refuses exp further than the token lifetime plus skew from iat or from now', async () => {
      const { kid, key } = await activeKey();
      const now = at();
      await expect401(await call(strict, await forge({ key, kid, iat: now, exp: now + 3600 + 300 })), /exp/);
      await expect401(await call(strict, await forge({ key, kid, iat: now - 3000, exp: now + 3000 })), /exp.*iat/);
      await expect401(await call(strict, await forge({ key, kid, iat: now, exp: now + 365 * 86400 })), /exp/);
      // iat a little ahead (within the skew) and a lifetime within bounds, but exp past now + lifetime + skew
      await expect401(await call(strict, await forge({ key, kid, iat: now + 55, exp: now + 55 + 3655 })), /exp.*future/);
      // a service that was not told the TTL still bounds it by the longest auth can issue (24 h)
      expect((await call(platform, await forge({ key, kid, iat: now, exp: now + 7200 }))).status).toBe(200);
      await expect401(await call(platform, await forge({ key, kid, iat: now, exp: now + 2 * 86400 })), /exp/);
    });
  });

  describe('roles', () => {
    it('@Roles answers 403 with a JSON message to other roles', async () => {
      const retailer = await participantWithToken(stack, 'retailer', 'platform');
      expect((await call(platform, retailer.token, '/probe/any')).status).toBe(200);
      const res = await call(platform, retailer.token, '/probe/makers');
      expect(res.status).toBe(403);
      expect(((await res.json()) as Json).message).toContain('retailer');
      expect((await call(platform, producer.token, '/probe/makers')).status).toBe(200);
    });
  });

  describe('key rotation', () => {
    it('tokens of the rotated-out key verify until they expire; new tokens use the new key', async () => {
      const oldToken = await tokenFor(stack, producer, 'platform');
      const oldKid = decodeProtectedHeader(oldToken).kid!;
      expect((await call(platform, oldToken)).status).toBe(200);

      const out: string[] = [];
      const code = await runCli(
        ['rotate-keys'],
        { DATABASE_URL: stack.databases.auth, AUTH_ISSUER: TEST_ISSUER, SIGNING_KEY_CACHE_SECONDS: '0' },
        { out: (l) => out.push(l), err: () => undefined },
      );
      expect(code).toBe(0);
      const rotated = JSON.parse(out.join('\n')) as { active_kid: string; retired: string[] };
      expect(rotated.retired).toEqual([oldKid]);
      expect(rotated.active_kid).not.toBe(oldKid);

      const newToken = await tokenFor(stack, producer, 'platform');
      expect(decodeProtectedHeader(newToken).kid).toBe(rotated.active_kid);
      const jwks = (await (await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      expect(jwks.keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.active_kid].sort());

      // the verifier that already knows the old key learns the new one at once
      expect((await call(platform, newToken)).status).toBe(200);
      expect((await call(platform, oldToken)).status).toBe(200);
      // a verifier started after the rotation still accepts the old key's tokens
      const fresh = await startGuardedApp({ authUrl: stack.urls.auth!, audience: TEST_AUDIENCES.platform });
      try {
        expect((await call(fresh, oldToken)).status).toBe(200);
        expect((await call(fresh, newToken)).status).toBe(200);
      } finally {
        await fresh.close();
      }

      // once the retired key's window has passed it leaves the JWKS and its tokens are refused
      const client = new Client({ connectionString: stack.databases.auth });
      await client.connect();
      await client.query(`UPDATE signing_keys SET retired_at = now() - interval '1 day' WHERE kid = $1`, [oldKid]);
      await client.end();
      const after = (await (await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      expect(after.keys.map((k) => k.kid)).toEqual([rotated.active_kid]);
      const later = await startGuardedApp({ authUrl: stack.urls.auth!, audience: TEST_AUDIENCES.platform });
      try {
        await expect401(await call(later, oldToken), /known key/);
        expect((await call(later, newToken)).status).toBe(200);
      } finally {
        await later.close();
      }
    });
  });

  describe('issuer unavailable', () => {
    it('answers 503 (not 401) when the signing keys cannot be fetched', async () => {
      const orphan = await startGuardedApp({ authUrl: 'http://127.0.0.1:9', audience: TEST_AUDIENCES.platform });
      try {
        const res = await call(orphan, producer.token);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(((await res.json()) as Json).message).toContain('signing keys');
      } finally {
        await orphan.close();
      }
    });
  });

  it('onboarding does not affect existing tokens (sanity: a second participant)', async () => {
    const other = await onboard(stack, 'producer');
    expect(other.participant_id).not.toBe(producer.participant_id);
  });
});
