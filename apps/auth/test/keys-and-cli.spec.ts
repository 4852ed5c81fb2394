import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { NestFactory } from '@nestjs/core';
import { createLocalJWKSet, decodeProtectedHeader, JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { loadConfig } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { onboard, startGuardedApp, TEST_AUDIENCES, TEST_ISSUER, TestStack, tokenFor, sqlRows } from '@dtp/testing';
import { AuthCliModule } from '../src/cli/cli.module';
import { runCli } from '../src/cli/commands';
import { AuthConfig } from '../src/config';
import { SigningKeys } from '../src/keys/signing-keys';

type Json = Record<string, unknown>;

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { AUTH_ISSUER: TEST_ISSUER, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('signing keys', () => {
  it('the first start creates exactly one key, even when instances start together', async () => {
    const stack = await startTestStack({ services: ['auth'] });
    try {
      const db = stack.databases.auth!;
      const config = loadConfig('auth', AuthConfig, { DATABASE_URL: db, AUTH_ADMIN_TOKEN: 'x'.repeat(12), PORT: '0' });
      const app = await NestFactory.createApplicationContext(AuthCliModule.forRoot(config, { poolSize: 4 }), { logger: false, abortOnError: false });
      try {
        const keys = app.get(SigningKeys);
        const kids = await Promise.all([keys.ensureActiveKey(), keys.ensureActiveKey(), keys.ensureActiveKey()]);
        expect(new Set(kids).size).toBe(1);
      } finally {
        await app.close();
      }
      const rows = await sqlRows<{ kid: string; active: boolean }>(db, 'SELECT kid, active FROM signing_keys');
      expect(rows).toHaveLength(1);
      expect(rows[0].active).toBe(true);
    } finally {
      await stack.close();
    }
  });

  it('encrypts private keys at rest when SIGNING_KEY_ENCRYPTION_KEY is set, and still issues verifiable tokens', async () => {
    const stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } } });
    const app = await startGuardedApp({ authUrl: stack.urls.auth!, audience: TEST_AUDIENCES.platform });
    try {
      const rows = await sqlRows<{ private_jwk: string }>(stack.databases.auth!, 'SELECT private_jwk FROM signing_keys');
      expect(rows[0].private_jwk).toMatch(/^enc:v1:/);
      expect(rows[0].private_jwk).not.toContain('"d"');
      const p = await onboard(stack, 'producer');
      const token = await tokenFor(stack, p, 'platform');
      expect((await fetch(`${app.url}/probe/any`, { headers: { authorization: token } })).status).toBe(200);
    } finally {
      await app.close();
      await stack.close();
    }
  });

  it('changing SIGNING_KEY_ENCRYPTION_KEY: with the old one in SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS, the active key is resealed at start and signs as before', async () => {
    const old = randomBytes(32).toString('base64');
    const next = randomBytes(32).toString('base64');
    const stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_ENCRYPTION_KEY: old } } });
    try {
      const db = stack.databases.auth!;
      const [before] = await sqlRows<{ kid: string; private_jwk: string }>(db, 'SELECT kid, private_jwk FROM signing_keys');
      const start = async (env: Record<string, string>) => {
        const config = loadConfig('auth', AuthConfig, {
          DATABASE_URL: db,
          AUTH_ADMIN_TOKEN: 'x'.repeat(12),
          PORT: '0',
          SIGNING_KEY_CACHE_SECONDS: '0',
          ...env,
        });
        const ctx = await NestFactory.createApplicationContext(AuthCliModule.forRoot(config, { poolSize: 2 }), { logger: false, abortOnError: false });
        const keys = ctx.get(SigningKeys);
        await keys.ensureActiveKey(); // what a start does
        return { ctx, keys };
      };

      // The new key alone does not open the key sealed with the old one.
      const without = await start({ SIGNING_KEY_ENCRYPTION_KEY: next });
      await expect(without.keys.active()).rejects.toThrow(/does not open with this SIGNING_KEY_ENCRYPTION_KEY/);
      await without.ctx.close();
      expect((await sqlRows<{ private_jwk: string }>(db, 'SELECT private_jwk FROM signing_keys'))[0].private_jwk).toBe(before.private_jwk);

      const changing = await start({ SIGNING_KEY_ENCRYPTION_KEY: next, SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS: old });
      const [after] = await sqlRows<{ kid: string; private_jwk: string }>(db, 'SELECT kid, private_jwk FROM signing_keys');
      expect(after.kid).toBe(before.kid);
      expect(after.private_jwk).toMatch(/^enc:v1:/);
      expect(after.private_jwk).not.toBe(before.private_jwk);
      expect((await changing.keys.active()).kid).toBe(before.kid);
      await changing.ctx.close();

      // Now the new key alone does: a token it signs verifies against the published key set.
      const done = await start({ SIGNING_KEY_ENCRYPTION_KEY: next });
      const { kid, key } = await done.keys.active();
      expect(kid).toBe(before.kid);
      const token = await new SignJWT({ participant_id: 'p', role: 'producer' })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_AUDIENCES.platform)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.reveal());
      await done.ctx.close();
      const jwks = createLocalJWKSet((await (await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
      expect((await jwtVerify(token, jwks, { issuer: TEST_ISSUER, audience: TEST_AUDIENCES.platform })).protectedHeader.kid).toBe(before.kid);
    } finally {
      await stack.close();
    }
  });

  it('never logs client secrets, admin tokens or private keys', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const stack = await startTestStack({ services: ['auth'], logger, env: { auth: { LOG_LEVEL: 'trace', SIGNING_KEY_CACHE_SECONDS: '0' } } });
    try {
      const p = await onboard(stack, 'producer');
      await tokenFor(stack, p, 'platform');
      await fetch(`${stack.urls.auth}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: p.client_id,
          client_secret: `${p.client_secret}x`,
          audience: TEST_AUDIENCES.platform,
        }),
      });
      expect((await cli(['rotate-keys'], { DATABASE_URL: stack.databases.auth! })).code).toBe(0);
      await tokenFor(stack, p, 'platform');
      const keys = await sqlRows<{ private_jwk: string }>(stack.databases.auth!, 'SELECT private_jwk FROM signing_keys');
      const log = lines.join('');
      expect(log).toContain(p.client_id);
      expect(log).not.toContain(p.client_secret);
      expect(log).not.toContain('test-admin-token');
      for (const k of keys) expect(log).not.toContain((JSON.parse(k.private_jwk) as { d: string }).d);
    } finally {
      await stack.close();
    }
  });
});

describe('auth CLI', () => {
  let stack: TestStack;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_CACHE_SECONDS: '0' } } });
    env = { DATABASE_URL: stack.databases.auth! };
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('onboards a participant whose credential then works against the running service', async () => {
    const r = await cli(
      ['onboard', '--name', 'CLI Mining', '--role', 'producer', '--provenance-name', 'Jwaneng', '--provenance-type', 'mine', '--country-code', 'BW'],
      env,
    );
    expect(r.code).toBe(0);
    const created = JSON.parse(r.out) as { participant_id: string; client_id: string; client_secret: string; role: string; name: string };
    expect(created).toMatchObject({ role: 'producer', name: 'CLI Mining' });
    const token = await tokenFor(stack, created, 'platform');
    expect(token.split('.')).toHaveLength(3);
    const outbox = await sqlRows<{ key: string; event_type: string }>(env.DATABASE_URL, 'SELECT key, event_type FROM outbox WHERE key = $1', [
      created.participant_id,
    ]);
    expect(outbox).toEqual([{ key: created.participant_id, event_type: 'participant.onboarded' }]);

    const shown = await cli(['show', '--participant', created.participant_id], env);
    expect(JSON.parse(shown.out)).toMatchObject({ provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } });
  });

  it('adds a credential and revokes a client', async () => {
    const p = await onboard(stack, 'retailer');
    const add = await cli(['add-credential', '--participant', p.participant_id], env);
    expect(add.code).toBe(0);
    const second = JSON.parse(add.out) as { client_id: string; client_secret: string };
    const revoke = await cli(['revoke-client', '--client-id', p.client_id], env);
    expect(revoke.code).toBe(0);
    expect(JSON.parse(revoke.out)).toEqual({ client_id: p.client_id, revoked: true });
    await expect(tokenFor(stack, p, 'platform')).rejects.toThrow('401');
    await expect(tokenFor(stack, second, 'platform')).resolves.toEqual(expect.any(String));
  });

  it('rotate-keys switches the signing key', async () => {
    const p = await onboard(stack, 'producer');
    const before = decodeProtectedHeader(await tokenFor(stack, p, 'platform')).kid;
    const r = await cli(['rotate-keys'], env);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as Json;
    expect(out).toMatchObject({ retired: [before], erased: [], retired_keys_published_for_seconds: 3600 + 10 + 60 });
    expect(decodeProtectedHeader(await tokenFor(stack, p, 'platform')).kid).toBe(out.active_kid);
  });

  it('erases private keys that have left the JWKS on the next rotation', async () => {
    const [{ kid: old }] = await sqlRows<{ kid: string }>(env.DATABASE_URL, 'SELECT kid FROM signing_keys WHERE retired_at IS NULL');
    expect((await cli(['rotate-keys'], env)).code).toBe(0);
    await sqlRows(env.DATABASE_URL, `UPDATE signing_keys SET retired_at = now() - interval '2 hours' WHERE kid = $1`, [old]);
    const r = await cli(['rotate-keys'], env);
    expect((JSON.parse(r.out) as { erased: string[] }).erased).toContain(old);
    const [row] = await sqlRows<{ private_jwk: string | null }>(env.DATABASE_URL, 'SELECT private_jwk FROM signing_keys WHERE kid = $1', [old]);
    expect(row.private_jwk).toBeNull();
  });

  it('runs in production without an admin token (it needs none), and refuses a weak one there like the service', async () => {
    expect(env).not.toHaveProperty('AUTH_ADMIN_TOKEN');
    const ok = await cli(['show', '--participant', '3f1c2f8e-1111-4222-8333-444455556666'], {
      ...env,
      NODE_ENV: 'production',
      SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    expect(ok.code).toBe(1);
    expect(JSON.parse(ok.err)).toMatchObject({ reason: 'participant_not_found' });
    const weak = await cli(['rotate-keys'], { ...env, NODE_ENV: 'production', AUTH_ADMIN_TOKEN: 'dev-admin-token' });
    expect(weak.code).toBe(2);
    expect(weak.err).toContain('AUTH_ADMIN_TOKEN must be at least 32');
    // Production also wants the signing keys encrypted at rest, or the explicit opt-out.
    expect(weak.err).toContain('SIGNING_KEY_ENCRYPTION_KEY is required');
    const optedOut = await cli(['show', '--participant', '3f1c2f8e-1111-4222-8333-444455556666'], {
      ...env,
      NODE_ENV: 'production',
      SIGNING_KEYS_UNENCRYPTED: 'true',
    });
    expect(optedOut.code).toBe(1);
  });

  it('reports bad input with exit code 2 and JSON on stderr', async () => {
    const bad = await cli(['onboard', '--name', 'X', '--role', 'wizard'], env);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.err)).toMatchObject({ detail: [{ loc: ['options', 'role'] }] });
    expect((await cli(['add-credential'], env)).code).toBe(2);
    expect((await cli(['frobnicate'], env)).code).toBe(2);
    expect((await cli(['onboard', '--bogus', 'x'], env)).code).toBe(2);
    expect((await cli([], env)).code).toBe(2);
    const missing = await cli(['add-credential', '--participant', '3f1c2f8e-1111-4222-8333-444455556666'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.err)).toMatchObject({ reason: 'participant_not_found' });
    expect((await cli(['show', '--participant', 'nope'], env)).code).toBe(2);
  });
});
