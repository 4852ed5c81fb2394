import { decodeJwt } from 'jose';
import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TEST_AUDIENCES, TestStack } from '@dtp/testing';

type Json = Record<string, unknown>;

describe('POST /oauth/token', () => {
  let stack: TestStack;
  let producer: ParticipantCredentials;
  let lab: ParticipantCredentials;
  let viewer: ParticipantCredentials;
  let url: string;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    url = `${stack.urls.auth}/oauth/token`;
    [producer, lab, viewer] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'grading_lab'), onboard(stack, 'non_participant')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  const json = (body: Json, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const form = (params: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params).toString() });
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const ok = (c: ParticipantCredentials, audience: string = TEST_AUDIENCES.platform): Json => ({
    grant_type: 'client_credentials',
    client_id: c.client_id,
    client_secret: c.client_secret,
    audience,
  });

  async function expectError(res: Response, status: number, error: string): Promise<Json> {
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error, error_description: expect.any(String) });
    return body;
  }

  describe('success', () => {
    it('answers a JSON request with a Bearer token and no-store headers', async () => {
      const res = await json(ok(producer));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      const body = (await res.json()) as Json;
      expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
      expect(body).not.toHaveProperty('refresh_token');
      const claims = decodeJwt(body.access_token as string);
      expect(claims.aud).toBe(TEST_AUDIENCES.platform);
      expect(claims.jti).toEqual(expect.any(String));
    });

    it('answers a form-urlencoded request (RFC 6749 4.4)', async () => {
      const res = await form(ok(producer) as Record<string, string>);
      expect(res.status).toBe(200);
      expect(decodeJwt(((await res.json()) as Json).access_token as string).sub).toBe(producer.client_id);
    });

    it('accepts HTTP Basic client authentication, with JSON or form bodies', async () => {
      const a = await form(
        { grant_type: 'client_credentials', audience: TEST_AUDIENCES.platform },
        { authorization: basic(producer.client_id, producer.client_secret) },
      );
      expect(a.status).toBe(200);
      const b = await json(
        { grant_type: 'client_credentials', audience: TEST_AUDIENCES.platform, client_id: producer.client_id },
        { authorization: basic(producer.client_id, producer.client_secret) },
      );
      expect(b.status).toBe(200);
    });

    it('gives each role a token for its own API only', async () => {
      const gis = await json(ok(lab, TEST_AUDIENCES.gis));
      expect(gis.status).toBe(200);
      expect(decodeJwt(((await gis.json()) as Json).access_token as string)).toMatchObject({ aud: TEST_AUDIENCES.gis, role: 'grading_lab' });
      const search = await json(ok(viewer, TEST_AUDIENCES.search));
      expect(search.status).toBe(200);
      expect(decodeJwt(((await search.json()) as Json).access_token as string)).toMatchObject({ aud: TEST_AUDIENCES.search, role: 'non_participant' });
    });

    it('tolerates a trailing slash on the audience and issues the canonical one', async () => {
      const res = await json(ok(producer, `${TEST_AUDIENCES.platform}/`));
      expect(res.status).toBe(200);
      expect(decodeJwt(((await res.json()) as Json).access_token as string).aud).toBe(TEST_AUDIENCES.platform);
    });

    it('issues distinct token ids', async () => {
      const [a, b] = await Promise.all([json(ok(producer)), json(ok(producer))]);
      const ja = decodeJwt(((await a.json()) as Json).access_token as string).jti;
      const jb = decodeJwt(((await b.json()) as Json).access_token as string).jti;
      expect(ja).not.toBe(jb);
    });
  });

  describe('errors (RFC 6749 5.2)', () => {
    it('invalid_request when grant_type is missing', async () => {
      const { grant_type: _, ...rest } = ok(producer);
      await expectError(await json(rest), 400, 'invalid_request');
    });

    it('invalid_request for an empty or non-object body', async () => {
      await expectError(await json({}), 400, 'invalid_request');
      const arr = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' });
      await expectError(arr, 400, 'invalid_request');
    });

    it('invalid_request when the audience is missing', async () => {
      const { audience: _, ...rest } = ok(producer);
      const body = await expectError(await json(rest), 400, 'invalid_request');
      expect(body.error_description).toContain('audience');
    });

    it('invalid_request for a repeated form parameter', async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&grant_type=client_credentials&client_id=${producer.client_id}&client_secret=${producer.client_secret}&audience=${encodeURIComponent(TEST_AUDIENCES.platform)}`,
      });
      await expectError(res, 400, 'invalid_request');
    });

    it('invalid_request for a non-string parameter', async () => {
      await expectError(await json({ ...ok(producer), audience: 42 }), 400, 'invalid_request');
    });

    it('invalid_request when Basic and a body secret are both used', async () => {
      const res = await json(ok(producer), { authorization: basic(producer.client_id, producer.client_secret) });
      await expectError(res, 400, 'invalid_request');
    });

    it('unsupported_grant_type for other grants', async () => {
      await expectError(await json({ ...ok(producer), grant_type: 'password' }), 400, 'unsupported_grant_type');
      await expectError(await json({ ...ok(producer), grant_type: 'authorization_code' }), 400, 'unsupported_grant_type');
    });

    it('invalid_client for a wrong secret, an unknown client or missing credentials', async () => {
      await expectError(await json({ ...ok(producer), client_secret: `${producer.client_secret}x` }), 401, 'invalid_client');
      await expectError(await json({ ...ok(producer), client_id: 'dtp_unknown' }), 401, 'invalid_client');
      const { client_secret: _s, ...noSecret } = ok(producer);
      await expectError(await json(noSecret), 401, 'invalid_client');
      const { client_id: _i, ...noId } = ok(producer);
      await expectError(await json(noId), 401, 'invalid_client');
    });

    it('a failed Basic authentication answers 401 with WWW-Authenticate: Basic', async () => {
      const params = { grant_type: 'client_credentials', audience: TEST_AUDIENCES.platform };
      const wrong = await form(params, { authorization: basic(producer.client_id, 'nope') });
      await expectError(wrong, 401, 'invalid_client');
      expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="dtp"');
      const malformed = await form(params, { authorization: 'Basic !!!not-base64' });
      await expectError(malformed, 401, 'invalid_client');
      expect(malformed.headers.get('www-authenticate')).toBe('Basic realm="dtp"');
      const bodyAuth = await json({ ...ok(producer), client_secret: 'nope' });
      expect(bodyAuth.headers.get('www-authenticate')).toBeNull();
    });

    it('invalid_target for an audience the role may not use', async () => {
      await expectError(await json(ok(producer, TEST_AUDIENCES.search)), 400, 'invalid_target');
      await expectError(await json(ok(producer, TEST_AUDIENCES.gis)), 400, 'invalid_target');
      await expectError(await json(ok(lab, TEST_AUDIENCES.platform)), 400, 'invalid_target');
      await expectError(await json(ok(viewer, TEST_AUDIENCES.platform)), 400, 'invalid_target');
    });

    it('invalid_target for an unknown audience', async () => {
      await expectError(await json(ok(producer, 'http://elsewhere.test')), 400, 'invalid_target');
    });

    it('a malformed JSON body is an error with no-store headers', async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
      await expectError(res, 400, 'invalid_request');
    });

    it('an unsupported content type is an error with no-store headers', async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'grant_type=client_credentials' });
      await expectError(res, 400, 'invalid_request');
    });
  });

  describe('revocation and further credentials', () => {
    const admin = { authorization: 'Bearer test-admin-token-0123456789' };

    it('a revoked client gets invalid_client; its sibling credential still works', async () => {
      const p = await onboard(stack, 'manufacturer');
      const add = await fetch(`${stack.urls.auth}/admin/participants/${p.participant_id}/credentials`, { method: 'POST', headers: admin });
      expect(add.status).toBe(201);
      const second = (await add.json()) as ParticipantCredentials;
      expect(second).toEqual({ participant_id: p.participant_id, client_id: expect.any(String), client_secret: expect.any(String), role: 'manufacturer' });
      expect(second.client_id).not.toBe(p.client_id);

      expect((await json(ok(p))).status).toBe(200);
      const revoke = await fetch(`${stack.urls.auth}/admin/clients/${p.client_id}/revoke`, { method: 'POST', headers: admin });
      expect(revoke.status).toBe(204);
      await expectError(await json(ok(p)), 401, 'invalid_client');
      const res = await json(ok({ ...p, client_id: second.client_id, client_secret: second.client_secret }));
      expect(res.status).toBe(200);
      expect(decodeJwt(((await res.json()) as Json).access_token as string)).toMatchObject({ participant_id: p.participant_id, sub: second.client_id });
    });
  });
});

describe('token endpoint rate limits', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_RATE_LIMIT_PER_CLIENT: '3', TOKEN_RATE_LIMIT_PER_IP: '5' } } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  const request = (c: Pick<ParticipantCredentials, 'client_id' | 'client_secret'>) =>
    fetch(`${stack.urls.auth}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret, audience: TEST_AUDIENCES.platform }),
    });

  it('limits per client, then per address, with 429 and Retry-After', async () => {
    const a = await onboard(stack, 'producer');
    const b = await onboard(stack, 'producer');
    for (let i = 0; i < 3; i += 1) expect((await request(a)).status).toBe(200);
    const limited = await request(a);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(await limited.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringContaining('client') });

    // another client from the same address still has room until the address limit (5 requests) is reached
    expect((await request(b)).status).toBe(200);
    const byIp = await request(b);
    expect(byIp.status).toBe(429);
    expect(((await byIp.json()) as Json).error_description).toContain('address');
  });
});
