import { createHmac, createSecretKey, KeyObject, randomUUID, sign as cryptoSign } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, JWK, KeyLike } from 'jose';

/**
 * A hand-made issuer for the guard's tests: an HTTP server that publishes a JWKS (auth's format: ES256 keys with
 * kid, alg, use) whose keys the test holds, so that it can sign every kind of token, good and bad. It counts the
 * fetches of its key set, and its keys can change while it runs (a rotation).
 */
export interface TestIssuer {
  url: string;
  jwksUrl: string;
  /** How many times the key set was fetched. */
  fetches: number;
  /** The published keys (replace to rotate). */
  published: { kid?: string; key: KeyLike }[];
  /** Answer the key set request with this status and body instead (null: serve the keys). */
  broken: { status: number; body: string } | null;
  close(): Promise<void>;
}

export async function startTestIssuer(keys: { kid?: string; key: KeyLike }[]): Promise<TestIssuer> {
  const issuer: TestIssuer = {
    url: '',
    jwksUrl: '',
    fetches: 0,
    published: keys,
    broken: null,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    issuer.fetches += 1;
    if (issuer.broken) return void res.writeHead(issuer.broken.status, { 'content-type': 'application/json' }).end(issuer.broken.body);
    void Promise.all(
      issuer.published.map(async ({ kid, key }) => ({ ...(await exportJWK(key)), ...(kid ? { kid } : {}), alg: 'ES256', use: 'sig' }) as JWK),
    ).then((jwks) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: jwks })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer.jwksUrl = `${issuer.url}/.well-known/jwks.json`;
  return issuer;
}

export async function es256Pair(): Promise<{ publicKey: KeyLike; privateKey: KeyLike }> {
  return generateKeyPair('ES256');
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Signs `header.payload` (both given as raw segment text) with ES256, as a compact JWS. */
export function signRaw(headerSegment: string, payloadSegment: string, key: KeyLike): string {
  const input = `${headerSegment}.${payloadSegment}`;
  const sig = cryptoSign('sha256', Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

/** A compact JWS of any header and payload (objects are JSON-encoded; strings are taken as the raw JSON text). */
export function signJson(header: unknown, payload: unknown, key: KeyLike): string {
  return signRaw(b64(header), b64(payload), key);
}

export interface TokenBatteryKeys {
  kid: string;
  key: KeyLike;
  /** A key the issuer does not publish. */
  stranger: KeyLike;
  publicJwk: JWK;
  issuer: string;
  audience: string;
}

/**
 * Authorization header values for every kind of refusal the guard knows, and a few controls, each named. The
 * tokens carry `client_id`/`participant_id`/`role` of a made-up producer.
 */
export function tokenBattery(k: TokenBatteryKeys): { name: string; header: string | undefined; path?: string }[] {
  const now = Math.floor(Date.now() / 1000);
  const claims = (over: Record<string, unknown> = {}, drop: string[] = []) => {
    const c: Record<string, unknown> = {
      iss: k.issuer,
      aud: k.audience,
      sub: 'dtp_client_battery',
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
      client_id: 'dtp_client_battery',
      participant_id: '0190f0c2-5a1e-7c3b-9d4e-0000000000aa',
      role: 'producer',
      ...over,
    };
    for (const d of drop) delete c[d];
    return c;
  };
  const hdr = (over: Record<string, unknown> = {}) => ({ alg: 'ES256', typ: 'at+jwt', kid: k.kid, ...over });
  const good = signJson(hdr(), claims(), k.key);
  const [gh, gp, gs] = good.split('.');
  const flipped = Buffer.from(gs, 'base64url');
  flipped[5] ^= 1;
  const hs = (secret: string) => {
    const input = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: k.kid })}.${b64(claims())}`;
    return `${input}.${createHmac('sha256', createSecretKey(Buffer.from(secret)))
      .update(input)
      .digest('base64url')}`;
  };
  const list: { name: string; header: string | undefined; path?: string }[] = [
    // controls
    { name: 'valid, bare', header: good },
    { name: 'valid, Bearer', header: `Bearer ${good}` },
    { name: 'valid, bearer lower case and spaces', header: `  bearer \t${good}  ` },
    { name: 'typ application/at+jwt (normalised)', header: signJson(hdr({ typ: 'application/at+jwt' }), claims(), k.key) },
    { name: 'typ AT+JWT (case)', header: signJson(hdr({ typ: 'AT+JWT' }), claims(), k.key) },
    { name: 'aud array holding ours', header: signJson(hdr(), claims({ aud: ['http://other', k.audience] }), k.key) },
    { name: 'exp 3 s ago (within tolerance)', header: signJson(hdr(), claims({ iat: now - 600, exp: now - 3 }), k.key) },
    { name: 'nbf 3 s ahead (within tolerance)', header: signJson(hdr(), claims({ nbf: now + 3 }), k.key) },
    { name: 'crit b64 true', header: signJson(hdr({ crit: ['b64'], b64: true }), claims(), k.key) },
    { name: 'role forbidden on @Roles route', header: signJson(hdr(), claims({ role: 'retailer' }), k.key), path: '/probe/makers' },
    { name: 'role allowed on @Roles route', header: good, path: '/probe/makers' },
    // the header
    { name: 'no header', header: undefined },
    { name: 'empty header', header: '' },
    { name: 'blank header', header: '   ' },
    { name: 'Bearer alone', header: 'Bearer' },
    { name: 'Bearer and no JWT', header: 'Bearer not-a-token' },
    { name: 'Basic', header: `Basic ${Buffer.from('a:b').toString('base64')}` },
    { name: 'Token scheme', header: `Token ${good}` },
    { name: 'two segments', header: 'a.b' },
    { name: 'four segments', header: `${good}.extra` },
    { name: 'trailing word', header: `Bearer ${good} trailing` },
    { name: 'quotes', header: '"x"' },
    // the JOSE header
    { name: 'garbage segments', header: 'aaa.bbb.ccc' },
    { name: 'header not JSON', header: `${b64('{nope')}.${gp}.${gs}` },
    { name: 'header an array', header: `${b64([1])}.${gp}.${gs}` },
    { name: 'header null', header: `${b64('null')}.${gp}.${gs}` },
    { name: 'header without alg', header: signJson({ typ: 'at+jwt', kid: k.kid }, claims(), k.key) },
    { name: 'alg a number', header: signJson(hdr({ alg: 256 }), claims(), k.key) },
    { name: 'alg empty', header: signJson(hdr({ alg: '' }), claims(), k.key) },
    { name: 'alg none', header: `${b64({ alg: 'none' })}.${b64(claims())}.` },
    { name: 'alg none, at+jwt and the real kid', header: `${b64({ alg: 'none', typ: 'at+jwt', kid: k.kid })}.${b64(claims())}.` },
    { name: 'HS256 with the public JWK as secret', header: hs(JSON.stringify(k.publicJwk)) },
    { name: 'HS256 with the public x as secret', header: hs(Buffer.from(k.publicJwk.x!, 'base64url').toString('latin1')) },
    { name: 'RS256 named', header: `${b64(hdr({ alg: 'RS256' }))}.${gp}.${gs}` },
    { name: 'ES384 named', header: `${b64(hdr({ alg: 'ES384' }))}.${gp}.${gs}` },
    { name: 'crit unknown', header: signJson(hdr({ crit: ['exp'], exp: 1 }), claims(), k.key) },
    { name: 'crit empty', header: signJson(hdr({ crit: [] }), claims(), k.key) },
    { name: 'crit not an array', header: signJson(hdr({ crit: 'b64' }), claims(), k.key) },
    { name: 'crit b64 missing', header: signJson(hdr({ crit: ['b64'] }), claims(), k.key) },
    { name: 'crit b64 not boolean', header: signJson(hdr({ crit: ['b64'], b64: 'no' }), claims(), k.key) },
    { name: 'crit b64 false', header: signRaw(b64(hdr({ crit: ['b64'], b64: false })), b64(claims()), k.key) },
    { name: 'crit unknown and alg HS256', header: `${b64(hdr({ alg: 'HS256', crit: ['zip'] }))}.${gp}.${gs}` },
    // keys and signatures
    { name: 'unknown kid', header: signJson(hdr({ kid: 'no-such-kid' }), claims(), k.stranger) },
    { name: 'no kid, stranger key', header: signJson({ alg: 'ES256', typ: 'at+jwt' }, claims(), k.stranger) },
    { name: 'no kid, the real key', header: signJson({ alg: 'ES256', typ: 'at+jwt' }, claims(), k.key) },
    { name: 'kid not a string', header: signJson(hdr({ kid: 7 }), claims(), k.key) },
    { name: 'real kid, stranger key', header: signJson(hdr(), claims(), k.stranger) },
    { name: 'tampered payload', header: `${gh}.${b64({ ...(JSON.parse(Buffer.from(gp, 'base64url').toString()) as object), role: 'manufacturer' })}.${gs}` },
    { name: 'flipped signature bit', header: `${gh}.${gp}.${flipped.toString('base64url')}` },
    { name: 'short signature', header: `${gh}.${gp}.${gs.slice(0, 40)}` },
    { name: 'empty signature', header: `${gh}.${gp}.` },
    { name: 'empty payload, bad signature', header: `${gh}..${gs}` },
    { name: 'empty payload, signed', header: signRaw(gh, '', k.key) },
    { name: 'payload not JSON, signed', header: signRaw(gh, b64('{nope'), k.key) },
    { name: 'payload not JSON, typ JWT, signed', header: signRaw(b64(hdr({ typ: 'JWT' })), b64('{nope'), k.key) },
    { name: 'payload not JSON, typ JWT, bad signature', header: `${b64(hdr({ typ: 'JWT' }))}.${b64('{nope')}.${gs}` },
    { name: 'payload an array, signed', header: signJson(hdr(), [1, 2], k.key) },
    { name: 'payload a string, signed', header: signJson(hdr(), '"text"', k.key) },
    { name: 'payload null, signed', header: signJson(hdr(), 'null', k.key) },
    // claims
    { name: 'typ JWT', header: signJson(hdr({ typ: 'JWT' }), claims(), k.key) },
    { name: 'typ missing', header: signJson({ alg: 'ES256', kid: k.kid }, claims(), k.key) },
    { name: 'typ a number', header: signJson(hdr({ typ: 1 }), claims(), k.key) },
    ...['iss', 'aud', 'exp', 'iat', 'sub', 'jti'].map((c) => ({ name: `missing ${c}`, header: signJson(hdr(), claims({}, [c]), k.key) })),
    { name: 'missing exp and iat', header: signJson(hdr(), claims({}, ['exp', 'iat']), k.key) },
    { name: 'iss wrong', header: signJson(hdr(), claims({ iss: 'http://evil.test' }), k.key) },
    { name: 'iss null', header: signJson(hdr(), claims({ iss: null }), k.key) },
    { name: 'aud wrong', header: signJson(hdr(), claims({ aud: 'http://other.test' }), k.key) },
    { name: 'aud array without ours', header: signJson(hdr(), claims({ aud: ['http://other.test'] }), k.key) },
    { name: 'aud a number', header: signJson(hdr(), claims({ aud: 5 }), k.key) },
    { name: 'iat a string', header: signJson(hdr(), claims({ iat: String(now) }), k.key) },
    { name: 'iat null', header: signJson(hdr(), claims({ iat: null }), k.key) },
    { name: 'nbf a string', header: signJson(hdr(), claims({ nbf: 'soon' }), k.key) },
    { name: 'nbf in the future', header: signJson(hdr(), claims({ nbf: now + 120 }), k.key) },
    { name: 'exp a string', header: signJson(hdr(), claims({ exp: String(now + 600) }), k.key) },
    { name: 'exp null', header: signJson(hdr(), claims({ exp: null }), k.key) },
    { name: 'expired', header: signJson(hdr(), claims({ iat: now - 7200, exp: now - 3600 }), k.key) },
    { name: 'expired 6 s ago', header: signJson(hdr(), claims({ iat: now - 600, exp: now - 6 }), k.key) },
    { name: 'iat in the future', header: signJson(hdr(), claims({ iat: now + 300, exp: now + 600 }), k.key) },
    { name: 'exp far from iat', header: signJson(hdr(), claims({ iat: now - 3600, exp: now + 86400 }), k.key) },
    { name: 'exp far from now', header: signJson(hdr(), claims({ iat: now + 50, exp: now + 50 + 86400 + 55 }), k.key) },
    { name: 'exp a year ahead', header: signJson(hdr(), claims({ exp: now + 365 * 86400 }), k.key) },
    { name: 'participant_id missing', header: signJson(hdr(), claims({}, ['participant_id']), k.key) },
    { name: 'participant_id empty', header: signJson(hdr(), claims({ participant_id: '' }), k.key) },
    { name: 'participant_id a number', header: signJson(hdr(), claims({ participant_id: 5 }), k.key) },
    { name: 'role admin', header: signJson(hdr(), claims({ role: 'admin' }), k.key) },
    { name: 'role missing', header: signJson(hdr(), claims({}, ['role']), k.key) },
    { name: 'client_id missing (sub stands in)', header: signJson(hdr(), claims({}, ['client_id']), k.key) },
    // several faults at once: the first in the order of the checks is named
    { name: 'typ JWT and expired', header: signJson(hdr({ typ: 'JWT' }), claims({ iat: now - 7200, exp: now - 3600 }), k.key) },
    { name: 'iss wrong and expired', header: signJson(hdr(), claims({ iss: 'http://evil.test', iat: now - 7200, exp: now - 3600 }), k.key) },
    { name: 'iss missing and aud wrong', header: signJson(hdr(), claims({ aud: 'http://other.test' }, ['iss']), k.key) },
    { name: 'aud wrong and iss wrong', header: signJson(hdr(), claims({ aud: 'http://other.test', iss: 'http://evil.test' }), k.key) },
    { name: 'aud wrong and nbf in the future', header: signJson(hdr(), claims({ aud: 'http://other.test', nbf: now + 120 }), k.key) },
    { name: 'nbf in the future and expired', header: signJson(hdr(), claims({ nbf: now + 120, iat: now - 7200, exp: now - 3600 }), k.key) },
    { name: 'iat a string and expired', header: signJson(hdr(), claims({ iat: 'x', exp: now - 3600 }), k.key) },
    { name: 'exp missing and iss wrong', header: signJson(hdr(), claims({ iss: 'http://evil.test' }, ['exp']), k.key) },
    { name: 'jti missing and expired', header: signJson(hdr(), claims({ iat: now - 7200, exp: now - 3600 }, ['jti']), k.key) },
    { name: 'expired and role admin', header: signJson(hdr(), claims({ role: 'admin', iat: now - 7200, exp: now - 3600 }), k.key) },
    { name: 'iat in the future and role admin', header: signJson(hdr(), claims({ role: 'admin', iat: now + 300, exp: now + 600 }), k.key) },
    { name: 'stranger key and typ JWT', header: signJson(hdr({ typ: 'JWT' }), claims(), k.stranger) },
    { name: 'stranger key and expired', header: signJson(hdr(), claims({ iat: now - 7200, exp: now - 3600 }), k.stranger) },
    { name: 'unknown kid and alg HS256', header: `${b64(hdr({ alg: 'HS256', kid: 'no-such-kid' }))}.${gp}.${gs}` },
    { name: 'crit b64 false, typ JWT', header: signRaw(b64(hdr({ crit: ['b64'], b64: false, typ: 'JWT' })), b64(claims()), k.key) },
  ];
  return list;
}

/** One answer, as the tests compare it: status, the headers that matter, the body text. */
export interface Answer {
  status: number;
  contentType: string | null;
  challenge: string | null;
  retryAfter: string | null;
  body: unknown;
}

export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    challenge: res.headers.get('www-authenticate'),
    retryAfter: res.headers.get('retry-after'),
    body,
  };
}
