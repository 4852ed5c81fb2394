import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startTestStack } from '@dtp/test-stack';
import { TestStack } from '@dtp/testing';

/**
 * auth started as production starts it (NODE_ENV=production) with the explicit opt-out SIGNING_KEYS_UNENCRYPTED=true:
 * it serves, and says at start that the private signing keys are stored unencrypted. (Without the key and without
 * the opt-out it does not start at all: config.spec.ts and the CLI test in keys-and-cli.spec.ts.)
 */
describe('auth in production with SIGNING_KEYS_UNENCRYPTED=true', () => {
  let stack: TestStack;
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });

  beforeAll(async () => {
    const adminToken = randomBytes(32).toString('base64url');
    stack = await startTestStack({
      services: ['auth'],
      logger: pino({ level: 'warn' }, sink),
      env: { auth: { NODE_ENV: 'production', AUTH_ADMIN_TOKEN: adminToken, SIGNING_KEYS_UNENCRYPTED: 'true' } },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('starts, serves the JWKS, and logs a warning naming the opt-out', async () => {
    expect((await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).status).toBe(200);
    const warning = lines.find((l) => l.level === 40 && l.msg.includes('SIGNING_KEYS_UNENCRYPTED=true'));
    expect(warning?.msg).toContain('plain JWK text');
  });
});
