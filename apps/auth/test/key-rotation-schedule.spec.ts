import { NestFactory } from '@nestjs/core';
import { decodeProtectedHeader } from 'jose';
import pino from 'pino';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { onboard, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER, TestStack, tokenFor, sqlRows } from '@dtp/testing';
import { authService } from '../src/app';
import { AuthCliModule } from '../src/cli/cli.module';
import { AuthConfig } from '../src/config';
import { KeyRotationSchedule, MAX_ROTATION_CHECK_MS } from '../src/keys/key-maintenance';
import { SigningKeys } from '../src/keys/signing-keys';

/**
 * Scheduled signing key rotation (SIGNING_KEY_ROTATION_DAYS, docs/auth.md "Signing keys and rotation"), against
 * the real database: off by default, due by the active key's age in the database, at start and by its timer,
 * once between replicas, stopped with the application.
 */
const DAY = 24 * 3600;

interface KeyRow {
  kid: string;
  active: boolean;
  retired_at: Date | null;
}

const keysIn = (db: string) => sqlRows<KeyRow>(db, 'SELECT kid, active, retired_at FROM signing_keys ORDER BY created_at');
/** Makes the active key `seconds` old. */
const ageActiveKey = (db: string, seconds: number) =>
  sqlRows(db, `UPDATE signing_keys SET created_at = now() - make_interval(secs => $1) WHERE retired_at IS NULL`, [seconds]);

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const scheduleOf = (service: RunningService) => service.app.get(KeyRotationSchedule);

describe('scheduled signing key rotation', () => {
  let stack: TestStack;

  afterEach(async () => {
    await stack?.close();
  });

  /** Stops the stack's auth and starts another on the same database with `env` (a restart, or a config change). */
  async function restartAuth(env: Record<string, string>): Promise<RunningService> {
    await stack.services.auth!.close();
    const db = stack.databases.auth!;
    const config = loadConfig('auth', AuthConfig, {
      DATABASE_URL: db,
      AUTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      AUTH_ISSUER: TEST_ISSUER,
      PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
      SEARCH_AUDIENCE: TEST_AUDIENCES.search,
      GIS_AUDIENCE: TEST_AUDIENCES.gis,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...env,
    });
    const service = await authService.start(config, { transport: stack.transport }, pino({ level: 'silent' }));
    stack.services.auth = service;
    stack.urls.auth = service.url;
    return service;
  }

  it('is off by default: an old key stays active, at start and when asked to check', async () => {
    stack = await startTestStack({ services: ['auth'] });
    const db = stack.databases.auth!;
    await ageActiveKey(db, 400 * DAY);
    const service = await restartAuth({});
    const schedule = scheduleOf(service);
    expect(schedule.enabled).toBe(false);
    await schedule.check();
    expect(schedule.nextCheckAt).toBeUndefined();
    expect(await keysIn(db)).toEqual([expect.objectContaining({ active: true, retired_at: null })]);
  });

  it('rotates at start when the active key is older than SIGNING_KEY_ROTATION_DAYS, and new tokens use the new key', async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_ROTATION_DAYS: '30', SIGNING_KEY_CACHE_SECONDS: '0' } } });
    const db = stack.databases.auth!;
    const [first] = await keysIn(db);
    // a fresh key is not due: nothing rotated, the next look within the hour
    expect(await keysIn(db)).toHaveLength(1);
    const next = scheduleOf(stack.services.auth!).nextCheckAt!;
    expect(next - Date.now()).toBeGreaterThan(MAX_ROTATION_CHECK_MS - 60_000);
    expect(next - Date.now()).toBeLessThanOrEqual(MAX_ROTATION_CHECK_MS);

    await ageActiveKey(db, 30 * DAY + 60);
    await restartAuth({ SIGNING_KEY_ROTATION_DAYS: '30', SIGNING_KEY_CACHE_SECONDS: '0' });
    const keys = await keysIn(db);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatchObject({ kid: first.kid, active: false, retired_at: expect.any(Date) });
    expect(keys[1]).toMatchObject({ active: true, retired_at: null });
    const p = await onboard(stack, 'producer');
    expect(decodeProtectedHeader(await tokenFor(stack, p, 'platform')).kid).toBe(keys[1].kid);
    // the retired key is still published, for the tokens it signed
    const jwks = (await (await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([keys[1].kid, first.kid]);
  });

  it('its timer rotates when the key comes due, and the count starts again from the new key', async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_ROTATION_DAYS: '1' } } });
    const db = stack.databases.auth!;
    const schedule = scheduleOf(stack.services.auth!);
    // Due in 8 s: room for a loaded machine between ageing the key and the check, and the timer fires soon after.
    await ageActiveKey(db, DAY - 8);
    await schedule.check();
    expect(await keysIn(db)).toHaveLength(1);
    expect(schedule.nextCheckAt! - Date.now()).toBeLessThanOrEqual(8000 + 1000);
    const rotated = await waitFor(async () => ((await keysIn(db)).length === 2 ? keysIn(db) : undefined), 'the timer to rotate', 30_000);
    expect(rotated.filter((k) => k.active)).toHaveLength(1);
    // the next check follows the new key's age: a day away, so within the hour cap
    await waitFor(async () => (schedule.nextCheckAt! - Date.now() > MAX_ROTATION_CHECK_MS - 60_000 ? true : undefined), 'the next check to be set');
  });

  it('replicas checking at the same time rotate once', async () => {
    stack = await startTestStack({ services: ['auth'] });
    const db = stack.databases.auth!;
    await ageActiveKey(db, 2 * DAY);
    const config = loadConfig('auth', AuthConfig, { DATABASE_URL: db, AUTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN, PORT: '0' });
    const replicas = await Promise.all(
      [1, 2, 3].map(() => NestFactory.createApplicationContext(AuthCliModule.forRoot(config), { logger: false, abortOnError: false })),
    );
    try {
      const outcomes = await Promise.all(replicas.map((r) => r.get(SigningKeys).rotateIfOlderThan(DAY)));
      expect(outcomes.filter((o) => o.rotated)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.rotated).map((o) => Math.round(o.dueInSeconds / 60))).toEqual([24 * 60, 24 * 60]);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
    const keys = await keysIn(db);
    expect(keys).toHaveLength(2);
    expect(keys.filter((k) => k.active)).toHaveLength(1);
  });

  it('stops with the application: no timer left', async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { SIGNING_KEY_ROTATION_DAYS: '7' } } });
    const schedule = scheduleOf(stack.services.auth!);
    expect(schedule.nextCheckAt).toEqual(expect.any(Number));
    await stack.services.auth!.close();
    expect(schedule.nextCheckAt).toBeUndefined();
    await schedule.check();
    expect(schedule.nextCheckAt).toBeUndefined();
  });
});
