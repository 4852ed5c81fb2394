import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';

/**
 * RFC 6749 5.2: `error_description` may only hold %x20-21 / %x23-5B / %x5D-7E. Every error the token endpoint can
 * produce is driven through HTTP here, many with hostile values the answer might be tempted to quote.
 */
const RFC6749_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

type Json = Record<string, unknown>;

interface Ctx {
  producer: ParticipantCredentials;
  lab: ParticipantCredentials;
  revoked: ParticipantCredentials;
}

interface Case {
  name: string;
  status: number;
  error: string;
  send: (c: Ctx) => Request;
  /** Basic attempts must carry the Basic challenge. */
  challenge?: boolean;
}

/** Values a careless description would echo back as they are. */
const HOSTILE: [string, string][] = [
  ['a double quote', 'pass"word'],
  ['a backslash', 'back\\slash'],
  ['a NUL', 'nul\u0000byte'],
  ['control characters', 'line\nbreak\ttab\r\u0007\u001b[31m'],
  ['DEL', 'del\u007f'],
  ['non-ASCII', 'unicodé ☃ ß'],
  ['an astral character', 'gem \u{1F48E}'],
  ['a lone surrogate', 'lone \ud800 surrogate'],
  ['a JSON fragment', '{"error":"x","error_description":"\\"}'],
  ['a long value', `${'"\\'.repeat(3000)}\u0000`],
];

let url = '';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const raw = (body: string, contentType: string, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
const form = (params: [string, string][], headers: Record<string, string> = {}) =>
  raw(new URLSearchParams(params).toString(), 'application/x-www-form-urlencoded', headers);
const creds = (c: ParticipantCredentials, audience: string = TEST_AUDIENCES.platform): Json => ({
  grant_type: 'client_credentials',
  client_id: c.client_id,
  client_secret: c.client_secret,
  audience,
});
const grantOnly = { grant_type: 'client_credentials', audience: TEST_AUDIENCES.platform };

const CASES: Case[] = [
  // body shape
  { name: 'an empty JSON object', status: 400, error: 'invalid_request', send: () => json({}) },
  { name: 'a JSON array', status: 400, error: 'invalid_request', send: () => raw('[1]', 'application/json') },
  { name: 'a JSON string', status: 400, error: 'invalid_request', send: () => raw('"grant_type"', 'application/json') },
  { name: 'JSON null', status: 400, error: 'invalid_request', send: () => raw('null', 'application/json') },
  { name: 'a JSON number', status: 400, error: 'invalid_request', send: () => raw('42', 'application/json') },
  { name: 'malformed JSON', status: 400, error: 'invalid_request', send: () => raw('{"grant_type":', 'application/json') },
  { name: 'JSON with a raw NUL and quotes', status: 400, error: 'invalid_request', send: () => raw('{"grant_type": "a\u0000"\\"}', 'application/json') },
  { name: 'JSON with raw non-ASCII garbage', status: 400, error: 'invalid_request', send: () => raw('{"ü\ud83d": ☃}', 'application/json') },
  { name: 'an empty JSON body', status: 400, error: 'invalid_request', send: () => raw('', 'application/json') },
  { name: 'text/plain', status: 400, error: 'invalid_request', send: () => raw('grant_type=client_credentials', 'text/plain') },
  { name: 'a content type with quotes', status: 400, error: 'invalid_request', send: () => raw('x', 'text/plain; charset="utf-8"') },
  { name: 'XML with a quoted charset', status: 400, error: 'invalid_request', send: () => raw('<x a="\\"/>', 'application/xml; charset="utf-8"') },
  { name: 'a content type with a backslash', status: 400, error: 'invalid_request', send: () => raw('x', 'application/x-"evil\\') },
  {
    name: 'a body past the size limit',
    status: 413,
    error: 'invalid_request',
    send: () => raw(JSON.stringify({ grant_type: 'x'.repeat(2 * 1024 * 1024) }), 'application/json'),
  },
  {
    name: 'nested JSON without grant_type',
    status: 400,
    error: 'invalid_request',
    send: () => raw(`${'{"a":'.repeat(20)}1${'}'.repeat(20)}`, 'application/json'),
  },
  ...[40, 3000, 100_000].flatMap((depth): Case[] => [
    {
      name: `JSON objects nested ${depth} deep`,
      status: 400,
      error: 'invalid_request',
      send: () => raw(`{"grant_type":"client_credentials","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`, 'application/json'),
    },
    {
      name: `JSON arrays nested ${depth} deep`,
      status: 400,
      error: 'invalid_request',
      send: () => raw(`{"grant_type":"client_credentials","x":${'['.repeat(depth)}${']'.repeat(depth)}}`, 'application/json'),
    },
  ]),
  // grant_type
  { name: 'grant_type missing', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), grant_type: undefined }) },
  { name: 'grant_type empty', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), grant_type: '' }) },
  { name: 'grant_type a number', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), grant_type: 7 }) },
  { name: 'grant_type an object', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), grant_type: { '"': '\\' } }) },
  { name: 'grant_type an array', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), grant_type: ['client_credentials', '"'] }) },
  {
    name: 'grant_type repeated (form)',
    status: 400,
    error: 'invalid_request',
    send: () =>
      form([
        ['grant_type', 'client_credentials'],
        ['grant_type', '"\\'],
      ]),
  },
  { name: 'grant_type password', status: 400, error: 'unsupported_grant_type', send: (c) => json({ ...creds(c.producer), grant_type: 'password' }) },
  { name: 'grant_type password (form)', status: 400, error: 'unsupported_grant_type', send: () => form([['grant_type', 'password']]) },
  ...HOSTILE.flatMap(([what, value]): Case[] => [
    { name: `grant_type with ${what} (JSON)`, status: 400, error: 'unsupported_grant_type', send: () => json({ grant_type: value }) },
    { name: `grant_type with ${what} (form)`, status: 400, error: 'unsupported_grant_type', send: () => form([['grant_type', value]]) },
  ]),
  // client authentication
  { name: 'no client authentication', status: 401, error: 'invalid_client', send: () => json(grantOnly) },
  { name: 'client_id without a secret', status: 401, error: 'invalid_client', send: (c) => json({ ...grantOnly, client_id: c.producer.client_id }) },
  { name: 'client_secret without an id', status: 401, error: 'invalid_client', send: (c) => json({ ...grantOnly, client_secret: c.producer.client_secret }) },
  { name: 'an unknown client', status: 401, error: 'invalid_client', send: (c) => json({ ...creds(c.producer), client_id: 'dtp_unknown' }) },
  { name: 'a wrong secret', status: 401, error: 'invalid_client', send: (c) => json({ ...creds(c.producer), client_secret: 'wrong' }) },
  {
    name: 'a wrong secret (form)',
    status: 401,
    error: 'invalid_client',
    send: (c) => form(Object.entries({ ...creds(c.producer), client_secret: 'wrong' }) as [string, string][]),
  },
  { name: 'a revoked client', status: 401, error: 'invalid_client', send: (c) => json(creds(c.revoked)) },
  { name: 'client_id a number', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), client_id: 12 }) },
  { name: 'client_secret an array', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), client_secret: ['"', '\\'] }) },
  ...HOSTILE.flatMap(([what, value]): Case[] => [
    { name: `a client_id with ${what}`, status: 401, error: 'invalid_client', send: (c) => json({ ...creds(c.producer), client_id: value }) },
    {
      name: `a client_secret with ${what} (form)`,
      status: 401,
      error: 'invalid_client',
      send: (c) => form(Object.entries({ ...creds(c.producer), client_secret: value }) as [string, string][]),
    },
    // (cut to 1,000 characters: past Node's 16 KiB header limit the server answers 431 before any route)
    {
      name: `a Basic client_id with ${what}`,
      status: 401,
      error: 'invalid_client',
      challenge: true,
      send: () =>
        json(grantOnly, {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(value.slice(0, 1000).replace(/[\ud800-\udfff]/g, '?'))}:x`).toString('base64')}`,
        }),
    },
  ]),
  {
    name: 'a Basic wrong secret',
    status: 401,
    error: 'invalid_client',
    challenge: true,
    send: (c) => form(Object.entries(grantOnly), { authorization: basic(c.producer.client_id, 'nope') }),
  },
  {
    name: 'a Basic unknown client with quotes',
    status: 401,
    error: 'invalid_client',
    challenge: true,
    send: () => json(grantOnly, { authorization: basic('a"b\\c', 'x') }),
  },
  { name: 'Basic without credentials', status: 401, error: 'invalid_client', challenge: true, send: () => json(grantOnly, { authorization: 'Basic' }) },
  { name: 'Basic not base64', status: 401, error: 'invalid_client', challenge: true, send: () => json(grantOnly, { authorization: 'Basic !!!"\\' }) },
  {
    name: 'Basic without a colon',
    status: 401,
    error: 'invalid_client',
    challenge: true,
    send: () => json(grantOnly, { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` }),
  },
  {
    name: 'Basic with a bad percent-encoding',
    status: 401,
    error: 'invalid_client',
    challenge: true,
    send: () => json(grantOnly, { authorization: `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}` }),
  },
  {
    name: 'Basic and a body secret',
    status: 400,
    error: 'invalid_request',
    send: (c) => json(creds(c.producer), { authorization: basic(c.producer.client_id, c.producer.client_secret) }),
  },
  {
    name: 'Basic and a different body client_id',
    status: 400,
    error: 'invalid_request',
    send: (c) => json({ ...grantOnly, client_id: 'other"\\' }, { authorization: basic(c.producer.client_id, c.producer.client_secret) }),
  },
  // audience
  { name: 'audience missing', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), audience: undefined }) },
  { name: 'audience a number', status: 400, error: 'invalid_request', send: (c) => json({ ...creds(c.producer), audience: 3 }) },
  {
    name: 'audience repeated (form)',
    status: 400,
    error: 'invalid_request',
    send: (c) => form([...(Object.entries(creds(c.producer)) as [string, string][]), ['audience', 'x"']]),
  },
  { name: 'an unknown audience', status: 400, error: 'invalid_target', send: (c) => json(creds(c.producer, 'http://elsewhere.test')) },
  { name: 'an audience the role may not use', status: 400, error: 'invalid_target', send: (c) => json(creds(c.producer, TEST_AUDIENCES.gis)) },
  {
    name: 'an audience the lab may not use (Basic)',
    status: 400,
    error: 'invalid_target',
    send: (c) => json({ ...grantOnly }, { authorization: basic(c.lab.client_id, c.lab.client_secret) }),
  },
  ...HOSTILE.flatMap(([what, value]): Case[] => [
    { name: `an audience with ${what} (JSON)`, status: 400, error: 'invalid_target', send: (c) => json(creds(c.producer, `http://x.test/${value}`)) },
    {
      name: `an audience with ${what} (form)`,
      status: 400,
      error: 'invalid_target',
      send: (c) => form(Object.entries(creds(c.producer, value)) as [string, string][]),
    },
  ]),
];

describe('token endpoint: every error_description is within RFC 6749 5.2', () => {
  let stack: TestStack;
  let ctx: Ctx;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    url = `${stack.urls.auth}/oauth/token`;
    const [producer, lab, revoked] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'grading_lab'), onboard(stack, 'retailer')]);
    const res = await fetch(`${stack.urls.auth}/admin/clients/${revoked.client_id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(204);
    ctx = { producer, lab, revoked };
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('the valid request of the table succeeds (control)', async () => {
    const res = await fetch(json(creds(ctx.producer)));
    expect(res.status).toBe(200);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await fetch(c.send(ctx));
    const text = await res.text();
    expect({ status: res.status, text }).toMatchObject({ status: c.status });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = JSON.parse(text) as Json;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe(c.error);
    expect(body.error_description).toMatch(RFC6749_DESCRIPTION);
    expect((body.error_description as string).length).toBeLessThanOrEqual(300);
    if (c.challenge) expect(res.headers.get('www-authenticate')).toBe('Basic realm="dtp"');
  });

  it('an unsupported grant is named without quotes, and hostile input is neutralised, not echoed', async () => {
    const plain = (await (await fetch(json({ grant_type: 'password' }))).json()) as Json;
    expect(plain.error_description).toBe("grant_type 'password' is not supported; use client_credentials");
    const hostile = (await (await fetch(json({ grant_type: 'a"b\\c\u0000d\u00e9' }))).json()) as Json;
    expect(hostile.error_description).toBe("grant_type 'a'b/c?d?' is not supported; use client_credentials");
    const audience = (await (await fetch(json(creds(ctx.producer, 'x"\\')))).json()) as Json;
    expect(audience).toEqual({ error: 'invalid_target', error_description: "audience 'x'/' is not an API of this platform" });
    const deep = (await (await fetch(raw(`${'['.repeat(50)}${']'.repeat(50)}`, 'application/json'))).json()) as Json;
    expect(deep).toEqual({ error: 'invalid_request', error_description: 'the request body is nested too deeply' });
    const quoted = (await (await fetch(raw('<x/>', 'application/xml; charset="utf-8"'))).json()) as Json;
    expect(quoted.error_description).toBe('unsupported content type; send application/json or application/x-www-form-urlencoded');
  });
});

describe('token endpoint: the rate-limit error_description is within RFC 6749 5.2', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_RATE_LIMIT_PER_IP: '1' } } });
    url = `${stack.urls.auth}/oauth/token`;
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('429 too_many_requests', async () => {
    expect((await fetch(json({ grant_type: 'password' }))).status).toBe(400);
    const res = await fetch(json({ grant_type: 'password"\\' }));
    expect(res.status).toBe(429);
    const body = (await res.json()) as Json;
    expect(body.error).toBe('too_many_requests');
    expect(body.error_description).toMatch(RFC6749_DESCRIPTION);
  });
});
