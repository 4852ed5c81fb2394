import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';

type Json = Record<string, unknown>;
type Via = 'json' | 'form' | 'basic';

/**
 * Credentials match byte for byte. scrypt's inner HMAC pads a key shorter than 64 bytes with zero bytes, so
 * before the fix the real secret followed by NULs derived the same hash and got a token (issue 12 item 2).
 */
describe('POST /oauth/token: client credentials match byte for byte', () => {
  let stack: TestStack;
  let producer: ParticipantCredentials;
  let url: string;

  beforeAll(async () => {
    // dozens of deliberate failures from one address: lift the failure lockout, which is tested elsewhere
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_FAILURE_LIMIT: '100000' } } });
    url = `${stack.urls.auth}/oauth/token`;
    producer = await onboard(stack, 'producer');
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** Every UTF-8 byte percent-encoded (RFC 6749 2.3.1), so even a lone surrogate can be sent (as U+FFFD). */
  const urlencode = (s: string) => Array.from(Buffer.from(s, 'utf8'), (b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${urlencode(id)}:${urlencode(secret)}`).toString('base64')}`;

  function request(via: Via, clientId: string, secret: string): Promise<Response> {
    const params = { grant_type: 'client_credentials', audience: TEST_AUDIENCES.platform };
    if (via === 'basic') {
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
        body: new URLSearchParams(params).toString(),
      });
    }
    const body = { ...params, client_id: clientId, client_secret: secret };
    if (via === 'form') {
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
    }
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  async function expectInvalidClient(res: Response, via: Via, what: string): Promise<void> {
    const text = await res.text();
    expect({ what, status: res.status, text }).toMatchObject({ status: 401 });
    expect(JSON.parse(text)).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('www-authenticate')).toBe(via === 'basic' ? 'Basic realm="dtp"' : null);
  }

  const VIAS: Via[] = ['json', 'form', 'basic'];

  it.each(VIAS)('the exact secret gets a token (%s)', async (via) => {
    const res = await request(via, producer.client_id, producer.client_secret);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).token_type).toBe('Bearer');
  });

  it.each(VIAS)('the real secret followed by a NUL and anything is invalid_client (%s)', async (via) => {
    for (const suffix of ['\u0000garbage', '\u0000', '\u0000\u0000\u0000', '\u0000'.repeat(21), '\u0000'.repeat(22), '\u0000x\u0000']) {
      await expectInvalidClient(await request(via, producer.client_id, producer.client_secret + suffix), via, JSON.stringify(suffix));
    }
  });

  it.each(VIAS)('the real secret with any character appended, prepended or cut is invalid_client (%s)', async (via) => {
    const s = producer.client_secret;
    const appended = ['x', ' ', '=', '.', '%', '+', '\t', '\n', '\u007f', '\u0080', 'é', '\ud800', '\ufffd', '\u{1F48E}', '\u200b'];
    const variants = [...appended.map((c) => s + c), ...appended.slice(0, 4).map((c) => c + s), s.slice(0, -1), s.toUpperCase(), ''];
    for (const secret of variants) {
      const res = await request(via, producer.client_id, secret);
      if (secret === '') {
        // no secret at all: still invalid_client
        await expectInvalidClient(res, via, 'empty');
        continue;
      }
      await expectInvalidClient(res, via, JSON.stringify(secret));
    }
  });

  it.each(VIAS)('NUL, lone surrogates and control characters in client_id are refused without a 5xx (%s)', async (via) => {
    const ids = [
      `${producer.client_id}\u0000`,
      `\u0000${producer.client_id}`,
      `${producer.client_id}\ud800`,
      `${producer.client_id}\u0001`,
      `${producer.client_id}\u001b`,
      'x'.repeat(300),
    ];
    for (const id of ids) {
      await expectInvalidClient(await request(via, id, producer.client_secret), via, JSON.stringify(id));
    }
  });

  it('the exact secret still works after all of that (nothing locked, nothing stored)', async () => {
    for (const via of VIAS) expect((await request(via, producer.client_id, producer.client_secret)).status).toBe(200);
  });

  it('the admin revoke endpoint answers 404 (not 500) for a client id holding a NUL', async () => {
    const res = await fetch(`${stack.urls.auth}/admin/clients/${encodeURIComponent(`${producer.client_id}\u0000`)}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(404);
    expect((await request('json', producer.client_id, producer.client_secret)).status).toBe(200);
  });
});
