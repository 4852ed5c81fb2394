import { randomBytes } from 'node:crypto';
import { loadConfig } from '@dtp/service-kit';
import type { WebhookWithSecret } from '@dtp/domain';
import { PlatformConfig } from '../src/config';
import { blockedAddressReason, checkedTarget, UrlRefused } from '../src/webhooks/url-guard';
import { SenderOptions, WebhookSender } from '../src/webhooks/webhook-sender';
import { call, PlatformFixture, startPlatform } from './helpers';
import { knownParticipant } from './shipments-helpers';
import { startReceiver } from './webhook-receiver';

/** The SSRF rules (DESIGN.md "Events out...": SSRF), as live/sandbox/production apply them. */
describe('webhook SSRF rules', () => {
  describe('at subscription (platform with WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
    let f: PlatformFixture;
    beforeAll(async () => {
      f = await startPlatform({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    });
    afterAll(async () => f?.close());

    it.each([
      ['http://example.com/hook', /url must use https/],
      ['https://127.0.0.1/hook', /127\.0\.0\.1, a loopback, private, link-local, metadata or reserved address/],
      ['https://localhost/hook', /host localhost resolves to (127\.0\.0\.1|::1)/],
      ['https://10.1.2.3/hook', /10\.1\.2\.3/],
      ['https://172.16.0.1/hook', /172\.16\.0\.1/],
      ['https://192.168.1.1/hook', /192\.168\.1\.1/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
      ['https://100.64.0.1/hook', /100\.64\.0\.1/],
      ['https://0.0.0.0/hook', /0\.0\.0\.0/],
      ['https://[::1]/hook', /::1/],
      ['https://[fd00::1]/hook', /fd00::1/],
      ['https://[fe80::1]/hook', /fe80::1/],
      ['https://[::ffff:127.0.0.1]/hook', /::ffff:7f00:1, a loopback/],
      ['https://no-such-host.invalid/hook', /does not resolve/],
    ])('refuses %s with 422 naming url and the reason', async (url, reason) => {
      const p = await knownParticipant(f, 'producer');
      const res = await call<{ detail: { loc: string[]; msg: string }[] }>(f, 'POST', '/webhooks', p.token, { url });
      expect(res.status).toBe(422);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0].loc).toEqual(['body', 'url']);
      expect(res.body.detail[0].msg).toMatch(reason);
    });

    it('checks a changed URL the same way', async () => {
      const p = await knownParticipant(f, 'producer');
      // a public address literal passes the check (nothing is sent at subscription)
      const created = await call<WebhookWithSecret>(f, 'POST', '/webhooks', p.token, { url: 'https://93.184.215.14/hook' });
      expect(created.status).toBe(201);
      const res = await call<{ detail: { loc: string[]; msg: string }[] }>(f, 'PATCH', `/webhooks/${created.body.webhook_id}`, p.token, {
        url: 'https://169.254.169.254/x',
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'url']);
    });
  });

  describe('configuration', () => {
    // Production and live require the webhook secrets encrypted at rest (given here; tested in webhook-secrets.spec.ts).
    const base = {
      DATABASE_URL: 'postgres://u:p@localhost/db',
      AUTH_ISSUER: 'http://localhost:3001',
      AUTH_JWKS_URL: 'http://localhost:3001/jwks',
      WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    it.each([
      [{}, false],
      [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, true],
      [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', DTP_ENV: 'live' }, false],
      [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', DTP_ENV: 'sandbox' }, false],
      [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', NODE_ENV: 'production' }, false],
    ])('%o allows private targets: %s', (env, allowed) => {
      expect(loadConfig('platform', PlatformConfig, { ...base, ...env }).webhookAllowPrivate).toBe(allowed);
    });

    it('refuses a malformed retry schedule at start-up', () => {
      expect(() => loadConfig('platform', PlatformConfig, { ...base, WEBHOOK_RETRY_SCHEDULE_MS: '5s,1m' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
      expect(loadConfig('platform', PlatformConfig, { ...base, WEBHOOK_RETRY_SCHEDULE_MS: '10,20' }).webhookRetrySchedule).toEqual([10, 20]);
    });
  });

  describe('at connection', () => {
    const senders: WebhookSender[] = [];
    /** One delivery through a sender of its own (closed after the test). */
    const sendWebhook = (url: string, headers: Record<string, string>, body: string, opts: SenderOptions) => {
      const s = new WebhookSender(opts);
      senders.push(s);
      return s.send(url, headers, body);
    };
    afterEach(async () => {
      await Promise.all(senders.splice(0).map((s) => s.close()));
    });

    it('refuses when the name resolves to a private address now (DNS rebinding), and connects to nothing', async () => {
      const r = await startReceiver();
      try {
        let calls = 0;
        // public at subscription, loopback when delivering
        const rebinding = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
        await expect(checkedTarget(new URL('https://rebind.example/hook'), false, rebinding)).resolves.toEqual({ address: '93.184.215.14', family: 4 });
        const port = new URL(r.url).port;
        const out = await sendWebhook(`https://rebind.example:${port}/hook`, {}, '{}', { timeoutMs: 1000, allowPrivate: false, resolve: rebinding });
        expect(out).toEqual({ status: null, error: expect.stringMatching(/^refused: url host rebind\.example resolves to 127\.0\.0\.1/) });
        expect(r.received).toHaveLength(0);
      } finally {
        await r.close();
      }
    });

    it('connects to the very address it checked, keeping the name in the Host header', async () => {
      const r = await startReceiver();
      try {
        const port = new URL(r.url).port;
        const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
        const out = await sendWebhook(`http://hook.example:${port}/hook`, { 'webhook-id': 'x' }, '{"a":1}', { timeoutMs: 1000, allowPrivate: true, resolve });
        expect(out).toEqual({ status: 204, error: null });
        expect(r.received[0].headers.host).toBe(`hook.example:${port}`);
        expect(r.received[0].body).toBe('{"a":1}');
      } finally {
        await r.close();
      }
    });

    it('follows no redirect (a 3xx is a failed attempt) and reads at most 64 KiB of a body', async () => {
      const target = await startReceiver();
      const big = 'z'.repeat(1024 * 1024);
      const r = await startReceiver((_rec, n) => (n === 1 ? { status: 302, headers: { location: target.url } } : { status: 500, body: big }));
      try {
        const redirected = await sendWebhook(r.url, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
        expect(redirected).toEqual({ status: 302, error: `HTTP 302 (redirects are not followed: to ${target.url})` });
        expect(target.received).toHaveLength(0);
        const huge = await sendWebhook(r.url, {}, '{}', { timeoutMs: 1000, allowPrivate: true });
        expect(huge.status).toBe(500);
        expect(huge.error).toBe(`HTTP 500: ${'z'.repeat(1024)}`);
      } finally {
        await r.close();
        await target.close();
      }
    });

    it('classifies addresses', () => {
      for (const a of [
        '127.0.0.1',
        '10.0.0.1',
        '172.31.255.255',
        '192.168.0.1',
        '169.254.169.254',
        '::1',
        'fe80::1',
        'fc00::1',
        '::ffff:10.0.0.1',
        '::ffff:a00:1',
        '224.0.0.1',
      ])
        expect([a, blockedAddressReason(a)]).toEqual([a, expect.stringContaining(a)]);
      for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700::1111']) expect(blockedAddressReason(a)).toBeNull();
      expect(() => {
        throw new UrlRefused('x');
      }).toThrow(UrlRefused);
    });
  });
});
