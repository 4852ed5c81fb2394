import { createHmac } from 'node:crypto';
import { createDtpClient, DtpApiError, eventFeed, verifyWebhook, WebhookVerificationError } from '../src';
import type { DtpEvent } from '../src';
import { fakeJwt, ScriptedServer, startScriptedServer } from './scripted-server';

const token = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
const ev = (n: number): DtpEvent => ({
  specversion: '1.0',
  id: `id-${n}`,
  source: 'http://platform',
  type: 'dtp.diamond.updated',
  time: '2025-01-01T00:00:00.000Z',
  subject: `d${n}`,
  datacontenttype: 'application/json',
  data: { n },
});

describe('eventFeed', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  /** A feed of `total` events served `limit` at a time, cursor = c_<index of the last one>. */
  async function feedServer(total: () => number) {
    server = await startScriptedServer((req) => {
      if (req.path === '/oauth/token') return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
      const q = new URL(req.path, 'http://x').searchParams;
      if (q.get('after') === 'bad') return { status: 422, body: { detail: [{ loc: ['query', 'after'], msg: 'bad', type: 'value_error' }] } };
      const after = q.get('after') ? Number(q.get('after')!.slice(2)) : 0;
      const limit = Number(q.get('limit'));
      const events = Array.from({ length: Math.max(0, Math.min(limit, total() - after)) }, (_, i) => ev(after + i + 1));
      return { status: 200, body: { events, next_cursor: `c_${after + events.length}` } };
    });
    return createDtpClient({ authUrl: server.url, platformUrl: server.url, clientId: 'c', clientSecret: 's' });
  }

  it('pages through the feed from a cursor, in order, reporting each new cursor, and ends when caught up', async () => {
    const dtp = await feedServer(() => 7);
    const cursors: string[] = [];
    const got: string[] = [];
    for await (const e of eventFeed(dtp, { after: 'c_1', limit: 2, types: ['dtp.diamond.updated'], onCursor: (c) => void cursors.push(c) })) got.push(e.id);
    expect(got).toEqual(['id-2', 'id-3', 'id-4', 'id-5', 'id-6', 'id-7']);
    expect(cursors).toEqual(['c_3', 'c_5', 'c_7']);
    const asked = server!.seen.filter((r) => r.path.startsWith('/events')).map((r) => r.path);
    expect(asked[0]).toBe('/events?limit=2&after=c_1&types=dtp.diamond.updated');
    expect(asked).toHaveLength(4); // the last page comes back short (empty): caught up
  });

  it('follows the feed until aborted, picking up events that arrive later', async () => {
    let total = 1;
    const dtp = await feedServer(() => total);
    const ac = new AbortController();
    const got: string[] = [];
    for await (const e of eventFeed(dtp, { follow: true, pollIntervalMs: 10, signal: ac.signal })) {
      got.push(e.id);
      if (got.length === 1) total = 3;
      if (got.length === 3) ac.abort();
    }
    expect(got).toEqual(['id-1', 'id-2', 'id-3']);
  });

  it('throws the API error of a refused page', async () => {
    const dtp = await feedServer(() => 0);
    await expect(eventFeed(dtp, { after: 'bad' }).next()).rejects.toBeInstanceOf(DtpApiError);
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const sign = (id: string, ts: number, body: string, s = secret) =>
    `v1,${createHmac('sha256', Buffer.from(s.slice(6), 'base64'))
      .update(`${id}.${ts}.${body}`)
      .digest('base64')}`;
  const body = JSON.stringify(ev(1));
  const now = Date.now();
  const ts = Math.floor(now / 1000);

  it('answers the event of a correctly signed body (either of two signatures), from a plain object or Headers', () => {
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const headers = {
      'webhook-id': 'id-1',
      'webhook-timestamp': String(ts),
      'webhook-signature': `${sign('id-1', ts, body, other)} ${sign('id-1', ts, body)}`,
    };
    expect(verifyWebhook(body, headers, secret).id).toBe('id-1');
    expect(verifyWebhook(Buffer.from(body), new Headers(headers), other).subject).toBe('d1');
  });

  it('refuses a changed body, a wrong secret, an old timestamp and missing headers', () => {
    const headers = { 'webhook-id': 'id-1', 'webhook-timestamp': String(ts), 'webhook-signature': sign('id-1', ts, body) };
    expect(() => verifyWebhook(body.replace('d1', 'd2'), headers, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, headers, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).toThrow(/no webhook-signature matches/);
    const old = ts - 600;
    expect(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': String(old), 'webhook-signature': sign('id-1', old, body) }, secret)).toThrow(
      /too old/,
    );
    expect(() => verifyWebhook(body, { 'webhook-id': 'id-1' }, secret)).toThrow(/missing/);
  });
});
