import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { makeEnvelope, topicOf, EventTypes, type ClientCertificateChangedData } from '@dtp/domain';
import { CertificateFiles, ensureDevCa, issueDevCertificate, x5tS256 } from '@dtp/service-kit';
import { createDtpClient } from '@dtp/sdk';
import { startTestStack } from '@dtp/test-stack';
import { runCli } from '../../apps/dtp/src/cli';
import { onboard, ParticipantCredentials, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';

/**
 * Legacy integrations by mutual TLS and certificate-bound tokens (DESIGN.md "Legacy integrations: mutual TLS",
 * RFC 8705), with real TLS handshakes: the four services serve HTTPS beside their plain ports with certificates
 * this test makes (a development CA, a server certificate, client certificates, one of them expired), and learn the
 * registered certificates from auth's events. Platform trusts loopback as a proxy (forwarded certificates are
 * believed from it); search trusts only 10.0.0.0/8, so a forwarded certificate from loopback is ignored there.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const LEGACY_START = '2021-03-01T00:00:00Z';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** One request, over HTTPS with an optional client certificate, or plain HTTP. */
function call(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; cert?: CertificateFiles; ca?: string } = {},
): Promise<Answer> {
  const u = new URL(url);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  return new Promise((resolve, reject) => {
    const done = (res: import('node:http').IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          body = { text };
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    };
    const req =
      u.protocol === 'https:'
        ? httpsRequest(u, { method: opts.method ?? 'GET', headers, ca: opts.ca, cert: opts.cert?.certPem, key: opts.cert?.keyPem, agent: false }, done)
        : httpRequest(u, { method: opts.method ?? 'GET', headers, agent: false }, done);
    req.on('error', reject);
    req.end(payload);
  });
}

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const thumbprint = (c: CertificateFiles) => x5tS256(new X509Certificate(c.certPem).raw);
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

function expectInvalidToken(a: Answer, message: RegExp): void {
  expect(a.status).toBe(401);
  expect(a.body).toMatchObject({ error: 'invalid_token', message: expect.stringMatching(message) });
  expect(a.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="[^"]+"$/);
}

describe('mutual TLS: legacy calls and certificate-bound tokens', () => {
  let dir: string;
  let stack: TestStack;
  let ca: CertificateFiles;
  const certs = {} as Record<'legacy' | 'other' | 'viewer' | 'expired' | 'unregistered' | 'removed' | 'late', CertificateFiles>;
  let tls: Record<'auth' | 'platform' | 'search' | 'gis', string>;
  let legacy: ParticipantCredentials;
  let other: ParticipantCredentials;
  let viewer: ParticipantCredentials;

  const register = (p: ParticipantCredentials, cert: CertificateFiles | string) =>
    call(`${stack.urls.auth}/admin/participants/${p.participant_id}/certificates`, {
      method: 'POST',
      headers: admin,
      body: { certificate_pem: typeof cert === 'string' ? cert : cert.certPem },
    });
  const platformCall = (cert?: CertificateFiles, headers: Record<string, string> = {}) =>
    call(`${tls.platform}/v2/shipment/outbound`, { cert, ca: ca.certPem, headers });
  const tokenOverTls = (cert: CertificateFiles | undefined, body: Record<string, string>) =>
    call(`${tls.auth}/oauth/token`, { method: 'POST', cert, ca: ca.certPem, body: { grant_type: 'client_credentials', ...body } });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dtp-mtls-spec-'));
    ca = ensureDevCa(dir, 'mtls spec CA');
    const server = issueDevCertificate({ ca, outDir: dir, name: 'server', commonName: 'localhost', usage: 'server' });
    const client = (name: keyof typeof certs, extra: { notBefore?: Date; notAfter?: Date; selfSigned?: boolean } = {}) =>
      (certs[name] = issueDevCertificate({ ca: extra.selfSigned ? undefined : ca, outDir: dir, name, commonName: `${name} erp`, usage: 'client', ...extra }));
    client('legacy');
    client('other', { selfSigned: true }); // RFC 8705 self-signed: registration is what counts
    client('viewer');
    client('expired', { notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2020-02-01T00:00:00Z') });
    client('unregistered');
    client('removed');
    client('late');
    const tlsEnv = { TLS_CERT_FILE: server.certPath, TLS_KEY_FILE: server.keyPath, TLS_CLIENT_CA_FILE: ca.certPath };
    stack = await startTestStack({
      services: ['auth', 'platform', 'search', 'gis'],
      env: {
        auth: { ...tlsEnv, AUTH_TLS_PORT: '0' },
        platform: { ...tlsEnv, PLATFORM_TLS_PORT: '0', TRUSTED_PROXIES: 'loopback' },
        search: { ...tlsEnv, SEARCH_TLS_PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8' },
        gis: { ...tlsEnv, GIS_TLS_PORT: '0' },
      },
    });
    tls = {
      auth: stack.services.auth!.tlsUrl!,
      platform: stack.services.platform!.tlsUrl!,
      search: stack.services.search!.tlsUrl!,
      gis: stack.services.gis!.tlsUrl!,
    };
    legacy = await onboard(stack, 'producer', { integration_started_at: LEGACY_START });
    other = await onboard(stack, 'manufacturer', { integration_started_at: '2023-06-29T23:59:59Z' });
    viewer = await onboard(stack, 'non_participant', { integration_started_at: LEGACY_START });
    for (const [p, c] of [
      [legacy, certs.legacy],
      [other, certs.other],
      [viewer, certs.viewer],
      [legacy, certs.removed],
    ] as const) {
      expect((await register(p, c)).status).toBe(201);
    }
    // every service has learnt the certificates (events): the legacy call answers
    await until(
      () => platformCall(certs.legacy),
      (a) => a.status === 200,
      'platform to accept the legacy certificate',
    );
  });

  afterAll(async () => {
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('registration (admin API)', () => {
    it('answers 201 with the id, the RFC 8705 thumbprint, the subject and notAfter; lists it; shows integration_started_at', async () => {
      const p = await onboard(stack, 'retailer', { integration_started_at: '2019-12-31T10:00:00Z' });
      const cert = issueDevCertificate({ ca, outDir: dir, name: 'retailer', commonName: 'retailer erp', usage: 'client' });
      const created = await register(p, cert);
      expect(created.status).toBe(201);
      const x509 = new X509Certificate(cert.certPem);
      expect(created.body).toEqual({
        certificate_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        x5t_s256: thumbprint(cert),
        subject: 'CN=retailer erp',
        not_after: new Date(x509.validTo).toISOString(),
      });
      const listed = await call(`${stack.urls.auth}/admin/participants/${p.participant_id}/certificates`, { headers: admin });
      expect(listed.body).toEqual({ certificates: [created.body] });
      const shown = await call(`${stack.urls.auth}/admin/participants/${p.participant_id}`, { headers: admin });
      expect(shown.body.integration_started_at).toBe('2019-12-31T10:00:00.000Z');
      expect((await register(other, cert)).body).toMatchObject({ reason: 'certificate_already_registered' });
    });

    it('refuses a participant onboarded after 2023-06-30 (the default: now) with 409 mtls_not_allowed', async () => {
      const fresh = await onboard(stack, 'producer');
      const refused = await register(fresh, certs.late);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ reason: 'mtls_not_allowed', message: expect.stringContaining('2023-06-30') });
      const onTheDay = await onboard(stack, 'producer', { integration_started_at: '2023-06-30T00:00:00Z' });
      expect((await register(onTheDay, certs.late)).status).toBe(409);
    });

    it('refuses an expired certificate and text that is not one certificate with a 422 naming certificate_pem', async () => {
      const expired = await register(legacy, certs.expired);
      expect(expired.status).toBe(422);
      expect(expired.body.detail).toEqual([{ loc: ['body', 'certificate_pem'], msg: expect.stringMatching(/expired/), type: 'certificate_expired' }]);
      for (const bad of ['hello', certs.legacy.keyPem, certs.legacy.certPem + ca.certPem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']) {
        const answer = await register(legacy, bad);
        expect(answer.status).toBe(422);
        expect(answer.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'certificate_pem'] })]);
      }
      const missing = await call(`${stack.urls.auth}/admin/participants/${legacy.participant_id}/certificates`, { method: 'POST', headers: admin, body: {} });
      expect(missing.status).toBe(422);
    });

    it('an unknown participant or certificate is 404; the admin token is required', async () => {
      const none = '00000000-0000-4000-8000-000000000000';
      expect((await register({ ...legacy, participant_id: none }, certs.late)).status).toBe(404);
      const del = await call(`${stack.urls.auth}/admin/participants/${legacy.participant_id}/certificates/${none}`, { method: 'DELETE', headers: admin });
      expect(del).toMatchObject({ status: 404, body: { reason: 'certificate_not_found' } });
      const anon = await call(`${stack.urls.auth}/admin/participants/${legacy.participant_id}/certificates`);
      expect(anon.status).toBe(401);
    });
  });

  describe('legacy mode: mutual TLS without a token', () => {
    it('acts as the participant with its role: a producer registers a diamond over mTLS (HSTS on the HTTPS answer)', async () => {
      const created = await call(`${tls.platform}/diamonds/rough/create`, {
        method: 'POST',
        cert: certs.legacy,
        ca: ca.certPem,
        body: {
          box_id: 'BOX-MTLS',
          participant_id: 'MTLS-1',
          participant_timestamp: '2024-05-01T10:00:00Z',
          rough: { carats: '1.25', colour: 'G', model: 'M' },
        },
      });
      expect(created.status).toBe(200);
      expect(created.body.diamond_id).toEqual(expect.any(String));
      expect(created.headers['strict-transport-security']).toBeDefined();
      const outbound = await platformCall(certs.legacy);
      expect(outbound.status).toBe(200);
    });

    it('role rules apply: a producer is refused gis (403), a non-participant reads search over mTLS', async () => {
      const gis = await call(`${tls.gis}/v2/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz/validate/historic`, { cert: certs.legacy, ca: ca.certPem });
      expect(gis.status).toBe(403);
      await until(
        () => call(`${tls.search}/v1/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz`, { cert: certs.viewer, ca: ca.certPem }),
        (a) => a.status === 404,
        'search to accept the viewer certificate',
      );
      const producerOnSearch = await call(`${tls.search}/v1/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz`, { cert: certs.legacy, ca: ca.certPem });
      expect(producerOnSearch.status).toBe(403);
    });

    it('an unregistered certificate, or none at all, is 401 invalid_token with an RFC 6750 challenge', async () => {
      expectInvalidToken(await platformCall(certs.unregistered), /not registered/);
      expectInvalidToken(await platformCall(undefined), /missing Authorization/);
    });

    it('a removed certificate is refused once the removal has reached the services', async () => {
      const listed = await call(`${stack.urls.auth}/admin/participants/${legacy.participant_id}/certificates`, { headers: admin });
      const removed = (listed.body.certificates as Array<{ certificate_id: string; x5t_s256: string }>).find((c) => c.x5t_s256 === thumbprint(certs.removed))!;
      await until(
        () => platformCall(certs.removed),
        (a) => a.status === 200,
        'the second certificate to be accepted',
      );
      const url = `${stack.urls.auth}/admin/participants/${legacy.participant_id}/certificates/${removed.certificate_id}`;
      expect((await call(url, { method: 'DELETE', headers: admin })).status).toBe(204);
      expect((await call(url, { method: 'DELETE', headers: admin })).status).toBe(204);
      const refused = await until(
        () => platformCall(certs.removed),
        (a) => a.status === 401,
        'the removal to reach platform',
      );
      expectInvalidToken(refused, /not registered/);
      expect((await platformCall(certs.legacy)).status).toBe(200);
    });

    it('a registered certificate past its notAfter is refused (401, expired)', async () => {
      // A registration whose certificate has since expired: its event, as auth would have written it in 2020.
      const data: ClientCertificateChangedData = {
        certificate_id: '7d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21',
        participant_id: legacy.participant_id,
        role: 'producer',
        name: legacy.name,
        x5t_s256: thumbprint(certs.expired),
        not_after: '2020-02-01T00:00:00.000Z',
        removed_at: null,
      };
      const envelope = makeEnvelope({ event_type: EventTypes.CLIENT_CERTIFICATE_CHANGED, data, revision: 1, occurred_at: new Date('2020-01-15T00:00:00Z') });
      await stack.transport.publish([{ topic: topicOf(envelope.event_type), key: envelope.key, value: envelope }]);
      const refused = await until(
        () => platformCall(certs.expired),
        (a) => /expired/.test(String(a.body.message)),
        'the expired registration to arrive',
      );
      expectInvalidToken(refused, /has expired/);
    });
  });

  describe('RFC 8705: certificate-bound tokens', () => {
    it('the token endpoint authenticates client_id by its registered certificate and binds the token (cnf x5t#S256)', async () => {
      const answer = await tokenOverTls(certs.legacy, { client_id: legacy.client_id, audience: TEST_AUDIENCES.platform });
      expect(answer.status).toBe(200);
      const token = answer.body.access_token as string;
      expect(claims(token)).toMatchObject({ cnf: { 'x5t#S256': thumbprint(certs.legacy) }, participant_id: legacy.participant_id, role: 'producer' });
      // with its certificate: accepted
      expect((await platformCall(certs.legacy, { authorization: `Bearer ${token}` })).status).toBe(200);
      // stolen and replayed without the key: over plain HTTP, over TLS without a certificate, with another participant's
      expectInvalidToken(await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { authorization: token } }), /bound to a client certificate/);
      expectInvalidToken(await platformCall(undefined, { authorization: token }), /bound to a client certificate/);
      expectInvalidToken(await platformCall(certs.other, { authorization: token }), /bound to a client certificate/);
      // a forwarded copy of the certificate's PEM without the key does not help from an untrusted peer either
      const forwarded = await call(`${stack.urls.search}/v1/diamonds/x`, {
        headers: { authorization: token, 'ssl-client-cert': encodeURIComponent(certs.legacy.certPem) },
      });
      expect(forwarded.status).toBe(401);
    });

    it("refuses another participant's certificate, an unregistered one, a removed one and none at all (401 invalid_client)", async () => {
      for (const [cert, clientId] of [
        [certs.other, legacy.client_id],
        [certs.unregistered, legacy.client_id],
        [certs.removed, legacy.client_id],
        [undefined, legacy.client_id],
      ] as const) {
        const answer = await tokenOverTls(cert, { client_id: clientId, audience: TEST_AUDIENCES.platform });
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
        expect(answer.headers['cache-control']).toBe('no-store');
      }
    });

    it('a secret-authenticated token over mTLS is bound too; the same secret over plain HTTP gives an unbound token', async () => {
      const bound = await tokenOverTls(certs.other, { client_id: other.client_id, client_secret: other.client_secret, audience: TEST_AUDIENCES.platform });
      expect(claims(bound.body.access_token as string).cnf).toEqual({ 'x5t#S256': thumbprint(certs.other) });
      const plain = await call(`${stack.urls.auth}/oauth/token`, {
        method: 'POST',
        body: { grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret, audience: TEST_AUDIENCES.platform },
      });
      expect(claims(plain.body.access_token as string).cnf).toBeUndefined();
      expect((await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { authorization: plain.body.access_token as string } })).status).toBe(200);
    });

    it('serves RFC 8414 metadata advertising self_signed_tls_client_auth and bound tokens', async () => {
      const meta = await call(`${stack.urls.auth}/.well-known/oauth-authorization-server`);
      expect(meta.status).toBe(200);
      expect(meta.body).toMatchObject({
        issuer: TEST_ISSUER,
        token_endpoint: `${TEST_ISSUER}/oauth/token`,
        jwks_uri: `${TEST_ISSUER}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: expect.arrayContaining(['self_signed_tls_client_auth', 'client_secret_basic', 'client_secret_post']),
        tls_client_certificate_bound_access_tokens: true,
      });
    });
  });

  describe('a certificate forwarded by an ingress', () => {
    const pemHeader = (c: CertificateFiles) => encodeURIComponent(c.certPem);

    it('is believed from a TRUSTED_PROXIES peer (platform trusts loopback): the legacy call works over plain HTTP', async () => {
      const ok = await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { 'ssl-client-cert': pemHeader(certs.legacy) } });
      expect(ok.status).toBe(200);
      const xfcc = await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { 'x-forwarded-client-cert': pemHeader(certs.legacy) } });
      expect(xfcc.status).toBe(200);
      expectInvalidToken(
        await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { 'ssl-client-cert': 'not%20a%20certificate' } }),
        /forwarded client certificate/,
      );
      expectInvalidToken(
        await call(`${stack.urls.platform}/v2/shipment/outbound`, { headers: { 'ssl-client-cert': pemHeader(certs.unregistered) } }),
        /not registered/,
      );
    });

    it('is ignored from any other peer (search trusts 10.0.0.0/8 only): 401 as without a certificate', async () => {
      const refused = await call(`${stack.urls.search}/v1/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz`, { headers: { 'ssl-client-cert': pemHeader(certs.viewer) } });
      expectInvalidToken(refused, /missing Authorization/);
    });
  });

  describe('clients: the SDK (tls) and the dtp CLI (--cert/--key/--ca)', () => {
    it('the SDK calls in legacy mode with the certificate alone, and with client_id gets a bound token that flows through', async () => {
      const tlsOptions = { cert: certs.legacy.certPem, key: certs.legacy.keyPem, ca: ca.certPem };
      const legacyMode = createDtpClient({ platformUrl: tls.platform, tls: tlsOptions });
      const direct = await legacyMode.platform.GET('/v2/shipment/outbound', {});
      expect(direct.response.status).toBe(200);
      const bound = createDtpClient({
        authUrl: tls.auth,
        platformUrl: tls.platform,
        clientId: legacy.client_id,
        tls: tlsOptions,
        audiences: { platform: TEST_AUDIENCES.platform },
      });
      expect((await bound.platform.GET('/v2/shipment/outbound', {})).response.status).toBe(200);
      const token = await bound.tokens!.getToken(TEST_AUDIENCES.platform);
      expect(claims(token).cnf).toEqual({ 'x5t#S256': thumbprint(certs.legacy) });
      // the same token from a client without the certificate: refused
      const thief = createDtpClient({ platformUrl: stack.urls.platform, tokens: { getToken: async () => token } });
      expect((await thief.platform.GET('/v2/shipment/outbound', {})).response.status).toBe(401);
    });

    it('dtp inbound --cert --key --ca: the legacy call from the command line; a missing key file is a usage error', async () => {
      const run = async (args: string[]) => {
        let out = '';
        let err = '';
        const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, DTP_CONFIG_DIR: mkdtempSync(path.join(dir, 'dtp-')), DTP_PLATFORM_URL: tls.platform };
        const code = await runCli(args, {
          out: (t) => void (out += t),
          err: (t) => void (err += t),
          stdin: process.stdin,
          errIsTTY: false,
          errStream: process.stderr,
          env,
          cwd: dir,
        });
        return { code, out, err };
      };
      const ok = await run(['--cert', certs.legacy.certPath, '--key', certs.legacy.keyPath, '--ca', ca.certPath, 'inbound', '--json']);
      expect(ok).toMatchObject({ code: 0 });
      const missing = await run(['--cert', certs.legacy.certPath, '--key', path.join(dir, 'none.pem'), 'inbound']);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('--key');
    });
  });
});
