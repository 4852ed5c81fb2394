import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { WebhookDeliveryList, WebhookWithSecret } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { AtRestCipher, ConfigError, loadConfig, RunningService } from '@dtp/service-kit';
import { platformService } from '../src/app';
import { PlatformConfig } from '../src/config';
import { call, PlatformFixture, platformReplicaEnv, startPlatform, waitFor } from './helpers';
import { knownParticipant } from './shipments-helpers';
import { Received, Receiver, startReceiver } from './webhook-receiver';

const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE_MS: '50,100,200', WEBHOOK_TIMEOUT_MS: '2000' };

describe('webhook signing secrets at rest (WEBHOOK_SECRET_ENCRYPTION_KEY)', () => {
  describe('configuration', () => {
    const base = { DATABASE_URL: 'postgres://u:p@localhost/db', AUTH_ISSUER: 'http://localhost:3001', AUTH_JWKS_URL: 'http://localhost:3001/jwks' };
    const attempt = (vars: Record<string, string>): string[] => {
      try {
        loadConfig('platform', PlatformConfig, { ...base, ...vars });
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
    };

    it.each([[{ NODE_ENV: 'production' }], [{ DTP_ENV: 'live' }]])('%o: required, or the explicit opt-out WEBHOOK_SECRETS_UNENCRYPTED=true', (switches) => {
      const missing = attempt(switches);
      expect(missing).toHaveLength(1);
      expect(missing[0]).toMatch(/WEBHOOK_SECRET_ENCRYPTION_KEY is required when NODE_ENV=production or DTP_ENV=live/);
      expect(missing[0]).toContain('WEBHOOK_SECRETS_UNENCRYPTED=true');
      expect(attempt({ ...switches, WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') })).toEqual([]);
      expect(attempt({ ...switches, WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64url') })).toEqual([]);
      expect(attempt({ ...switches, WEBHOOK_SECRETS_UNENCRYPTED: 'true' })).toEqual([]);
      expect(attempt({ ...switches, WEBHOOK_SECRETS_UNENCRYPTED: 'false' })[0]).toMatch(/WEBHOOK_SECRET_ENCRYPTION_KEY is required/);
    });

    it('is optional elsewhere (npm start, tests); a key of the wrong size is refused, naming the variable and not printing it', () => {
      for (const switches of [{}, { NODE_ENV: 'development' }, { DTP_ENV: 'sandbox' }] as Record<string, string>[]) expect(attempt(switches)).toEqual([]);
      const short = randomBytes(16).toString('base64');
      const bad = attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: short });
      expect(bad).toHaveLength(1);
      expect(bad[0]).toMatch(/^WEBHOOK_SECRET_ENCRYPTION_KEY: .*32 bytes in base64/);
      expect(bad[0]).not.toContain(short);
    });

    it('WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS (changing the key): keys like it, comma-separated, only with it, never printed', () => {
      const k = () => randomBytes(32).toString('base64');
      expect(
        attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: k(), WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: `${k()},${randomBytes(32).toString('base64url')}` }),
      ).toEqual([]);
      const alone = attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: k() });
      expect(alone).toHaveLength(1);
      expect(alone[0]).toMatch(/^WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: .*needs WEBHOOK_SECRET_ENCRYPTION_KEY: the new key/);
      const short = randomBytes(16).toString('base64');
      const bad = attempt({ WEBHOOK_SECRET_ENCRYPTION_KEY: k(), WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: `${k()},${short}` });
      expect(bad).toHaveLength(1);
      expect(bad[0]).toMatch(/^WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: .*32 bytes in base64, comma-separated/);
      expect(bad[0]).not.toContain(short);
    });
  });

  describe('in the database and on the wire', () => {
    const key = randomBytes(32).toString('base64');
    let f: PlatformFixture;
    const receivers: Receiver[] = [];
    const replicas: RunningService[] = [];

    /** Another platform replica on f's database: the one that delivers (f's own worker is off). */
    const replica = async (env: Record<string, string>): Promise<RunningService> => {
      const r = await platformService.start(
        loadConfig('platform', PlatformConfig, platformReplicaEnv(f.stack.databases.platform!, { ...FAST, ...env })),
        { transport: f.stack.transport },
        pino({ level: 'silent' }),
      );
      replicas.push(r);
      return r;
    };
    const stop = async (r: RunningService) => {
      replicas.splice(replicas.indexOf(r), 1);
      await r.close();
    };
    const stored = async (webhookId: string) =>
      (await f.db.query<{ secret: string; previous_secret: string | null }>(`SELECT secret, previous_secret FROM webhooks WHERE webhook_id = $1`, [webhookId]))
        .rows[0];
    const subscribe = async (p: ParticipantWithToken): Promise<{ w: WebhookWithSecret; r: Receiver }> => {
      const r = await startReceiver();
      receivers.push(r);
      const res = await call<WebhookWithSecret>(f, 'POST', '/webhooks', p.token, { url: r.url });
      expect(res.status).toBe(201);
      return { w: res.body, r };
    };
    const ping = async (p: ParticipantWithToken, webhookId: string): Promise<string> => {
      const res = await call<{ delivery_id: string }>(f, 'POST', `/webhooks/${webhookId}/test`, p.token);
      expect(res.status).toBe(202);
      return res.body.delivery_id;
    };
    const delivery = async (p: ParticipantWithToken, webhookId: string, deliveryId: string) =>
      (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${webhookId}/deliveries`, p.token)).body.results.find((d) => d.delivery_id === deliveryId);
    /** The request verifies with each of `secrets` (the reference Standard Webhooks package). */
    const verifiesWith = (got: Received, secrets: string[]) => {
      for (const s of secrets) expect(new StandardWebhook(s).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(got.body));
    };

    beforeAll(async () => {
      // f serves the API without a key and delivers nothing; each test starts the replica that delivers.
      f = await startPlatform({ ...FAST, WEBHOOK_WORKER_ENABLED: 'false' });
    });
    afterEach(async () => {
      // A test that failed half-way leaves no replica delivering into the next one.
      for (const r of replicas.splice(0)) await r.close();
    });
    afterAll(async () => {
      for (const r of receivers) await r.close();
      await f?.close();
    });

    it('a secret stored as plain text is encrypted when a replica with the key starts, and still signs; a rotation keeps both forms readable', async () => {
      const p = await knownParticipant(f, 'manufacturer');
      const { w, r } = await subscribe(p);
      expect(await stored(w.webhook_id)).toEqual({ secret: w.secret, previous_secret: null });

      const withKey = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: key });
      const sealed = await stored(w.webhook_id);
      expect(sealed.secret).toMatch(/^enc:v1:[\w-]+:[\w-]+:[\w-]+$/);
      expect(sealed.secret).not.toContain(w.secret.slice(6, 30));
      const first = await ping(p, w.webhook_id);
      await waitFor('the ping, delivered by the replica with the key', async () => (await delivery(p, w.webhook_id, first))?.status === 'delivered');
      expect(r.received).toHaveLength(1);
      verifiesWith(r.received[0], [w.secret]);

      // Rotated through f (no key): the new secret is stored as it came, the old one stays encrypted; both sign.
      const rotated = (await call<WebhookWithSecret>(f, 'POST', `/webhooks/${w.webhook_id}/rotate-secret`, p.token)).body;
      expect(await stored(w.webhook_id)).toEqual({ secret: rotated.secret, previous_secret: sealed.secret });
      const second = await ping(p, w.webhook_id);
      await waitFor('the second ping', async () => (await delivery(p, w.webhook_id, second))?.status === 'delivered');
      expect(String(r.received[1].headers['webhook-signature']).split(' ')).toHaveLength(2);
      verifiesWith(r.received[1], [w.secret, rotated.secret]);
      await stop(withKey);

      // The next start with the key encrypts the plain one too; a rotation there stores both encrypted.
      const again = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: key });
      const both = await stored(w.webhook_id);
      expect(both.secret).toMatch(/^enc:v1:/);
      expect(both.previous_secret).toBe(sealed.secret);
      const third = await ping(p, w.webhook_id);
      await waitFor('the third ping', async () => (await delivery(p, w.webhook_id, third))?.status === 'delivered');
      expect(r.received).toHaveLength(3);
      verifiesWith(r.received[2], [w.secret, rotated.secret]);
      await stop(again);
    });

    it('without the key, or with another, an encrypted secret signs nothing: nothing is sent, the delivery waits (retried), and goes out once the key is back', async () => {
      const p = await knownParticipant(f, 'manufacturer');
      const { w, r } = await subscribe(p);
      await stop(await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: key })); // encrypts it at start
      expect((await stored(w.webhook_id)).secret).toMatch(/^enc:v1:/);

      // One ping (a later one would wait behind it: the same subject), attempted by each replica in turn.
      const id = await ping(p, w.webhook_id);
      for (const [env, reason] of [
        [{}, /^not sent: webhook secret [0-9a-f-]{36} is encrypted but WEBHOOK_SECRET_ENCRYPTION_KEY is not set$/],
        [
          { WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
          /^not sent: webhook secret [0-9a-f-]{36} does not open with this WEBHOOK_SECRET_ENCRYPTION_KEY/,
        ],
      ] as const) {
        const before = (await delivery(p, w.webhook_id, id))!.attempts;
        const wrong = await replica(env);
        const d = await waitFor('a failed attempt by this replica', async () => {
          const d = await delivery(p, w.webhook_id, id);
          return d && d.attempts > before && reason.test(d.last_error ?? '') ? d : null;
        });
        expect(d).toMatchObject({ status: 'pending', last_status_code: null });
        await stop(wrong);
      }
      expect(r.received).toEqual([]);

      await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: key });
      await waitFor('the ping delivered with the key back', async () => (await delivery(p, w.webhook_id, id))?.status === 'delivered');
      expect(r.accepted).toHaveLength(1);
      verifiesWith(r.accepted[0], [w.secret]);
      expect(r.accepted[0].event.id).toBe((await delivery(p, w.webhook_id, id))!.event_id);
    });

    it("an encrypted secret is bound to its webhook: copied into another webhook's row, it does not open there", async () => {
      const p = await knownParticipant(f, 'manufacturer');
      const a = await subscribe(p);
      const b = await subscribe(p);
      const withKey = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: key });
      await f.db.query(`UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE webhook_id = $1) WHERE webhook_id = $2`, [
        a.w.webhook_id,
        b.w.webhook_id,
      ]);
      const id = await ping(p, b.w.webhook_id);
      const d = await waitFor('a failed attempt', async () => {
        const d = await delivery(p, b.w.webhook_id, id);
        return d && d.attempts >= 1 && d.last_error ? d : null;
      });
      expect(d.last_error).toMatch(new RegExp(`^not sent: webhook secret ${b.w.webhook_id} does not open`));
      expect(b.r.received).toEqual([]);
      await stop(withKey);
    });

    it('changing the key in three rollouts: the new key as _PREVIOUS, then as the key (secrets resealed at start, a replica still on the old key signs with them), then alone', async () => {
      const p = await knownParticipant(f, 'manufacturer');
      const { w, r } = await subscribe(p);
      const old = randomBytes(32).toString('base64');
      await stop(await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: old })); // seals it with the old key at start
      const rotated = (await call<WebhookWithSecret>(f, 'POST', `/webhooks/${w.webhook_id}/rotate-secret`, p.token)).body;
      await stop(await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: old })); // and the rotation's new secret
      const before = await stored(w.webhook_id);
      expect([AtRestCipher.isSealed(before.secret), AtRestCipher.isSealed(before.previous_secret!)]).toEqual([true, true]);
      const next = randomBytes(32).toString('base64');

      // 1. Every replica learns the new key; nothing is resealed yet.
      const step1 = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: old, WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: next });
      expect(await stored(w.webhook_id)).toEqual(before);

      // 2. A replica with the new key (the old one as _PREVIOUS) reseals both secrets at start: the new key alone opens them.
      const step2 = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: next, WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS: old });
      const after = await stored(w.webhook_id);
      expect([after.secret === before.secret, after.previous_secret === before.previous_secret]).toEqual([false, false]);
      const alone = new AtRestCipher(next, 'WEBHOOK_SECRET_ENCRYPTION_KEY', 'webhook secret');
      expect([alone.open(w.webhook_id, after.secret), alone.open(w.webhook_id, after.previous_secret!)]).toEqual([rotated.secret, w.secret]);
      await stop(step2);
      // Mid-rollout, a replica still on step 1's settings signs with the resealed secrets.
      const first = await ping(p, w.webhook_id);
      await waitFor('the ping, by the replica of step 1', async () => (await delivery(p, w.webhook_id, first))?.status === 'delivered');
      verifiesWith(r.received[0], [w.secret, rotated.secret]);
      await stop(step1);

      // 3. The new key alone: nothing left to reseal, and it signs.
      const step3 = await replica({ WEBHOOK_SECRET_ENCRYPTION_KEY: next });
      expect(await stored(w.webhook_id)).toEqual(after);
      const second = await ping(p, w.webhook_id);
      await waitFor('the ping, with the new key only', async () => (await delivery(p, w.webhook_id, second))?.status === 'delivered');
      expect(r.received).toHaveLength(2);
      verifiesWith(r.received[1], [w.secret, rotated.secret]);
      await stop(step3);
    });
  });
});
