import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueDevCertificate } from '@dtp/service-kit';
import { Client } from 'pg';
import pino from 'pino';
import { importJWK, JWK, KeyLike, SignJWT } from 'jose';
import { KafkaTransport } from '@dtp/events';
import { startTestStack } from '@dtp/test-stack';
import {
  kafkaTestBrokers,
  onboard,
  ParticipantCredentials,
  participantWithToken,
  ParticipantWithToken,
  TEST_ADMIN_TOKEN,
  TEST_AUDIENCES,
  TEST_ISSUER,
  TestStack,
  tokenFor,
  UNKNOWN_ID,
} from '@dtp/testing';
import { REVOKED_TOKEN_MESSAGE, TokenError, TokenVerifier } from '../src';

/**
 * Revoking a client stops its tokens within seconds on every service (docs/auth.md "Revocation"): auth publishes
 * `client.revoked`, each service's deny-list consumer feeds its guard, and the guard consults the deny-list on
 * every request, cached token or not. Real services, real HTTP, real PostgreSQL; the in-process bus, and the
 * Kafka peer for one service.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
/** How long a revocation may take to reach a guard here (the claim is "within about a second"). */
const REVOCATION_BOUND_MS = 5000;

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = REVOCATION_BOUND_MS): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function revoke(stack: TestStack, clientId: string): Promise<void> {
  const res = await fetch(`${stack.urls.auth}/admin/clients/${clientId}/revoke`, { method: 'POST', headers: admin });
  expect(res.status).toBe(204);
}

/** A further credential of the same participant, through the admin API. */
async function sibling(stack: TestStack, p: ParticipantCredentials): Promise<ParticipantCredentials> {
  const res = await fetch(`${stack.urls.auth}/admin/participants/${p.participant_id}/credentials`, { method: 'POST', headers: admin });
  expect(res.status).toBe(201);
  return { ...((await res.json()) as ParticipantCredentials), name: p.name };
}

/** One protected, read-only route per service, and the status a valid token gets there. */
const routes = {
  platform: { path: '/v2/shipment/inbound', ok: 200 },
  search: { path: `/v1/diamonds/${UNKNOWN_ID}`, ok: 404 },
  gis: { path: `/v2/diamonds/${UNKNOWN_ID}/validate/historic`, ok: 404 },
} as const;
type Guarded = keyof typeof routes;

const call = (stack: TestStack, service: Guarded, token: string) =>
  fetch(`${stack.urls[service]}${routes[service].path}`, { headers: { authorization: token } });

/** The answer of a refused revoked token: the guard's usual 401, JSON body and challenge. */
async function expectRevoked(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(await res.json()).toEqual({ message: REVOKED_TOKEN_MESSAGE, error: 'invalid_token' });
  expect(res.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${REVOKED_TOKEN_MESSAGE}"`);
}

/** Polls until `service` refuses `token`, then checks the refusal. */
async function refusedWithin(stack: TestStack, service: Guarded, token: string): Promise<void> {
  const res = await eventually(async () => {
    const r = await call(stack, service, token);
    if (r.status === 401) return r;
    expect(r.status).toBe(routes[service].ok); // until then: the normal answer, nothing else
    return undefined;
  }, `${service} refuses the revoked token`);
  await expectRevoked(res);
}

describe('revocation within seconds: auth + platform + search + gis on the in-process bus', () => {
  let stack: TestStack;
  let producer: ParticipantWithToken;
  let producerSibling: ParticipantCredentials;
  let siblingToken: string;
  let reader: ParticipantWithToken;
  let lab: ParticipantWithToken;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform', 'search', 'gis'] });
    [producer, reader, lab] = await Promise.all([
      participantWithToken(stack, 'producer'),
      participantWithToken(stack, 'non_participant'),
      participantWithToken(stack, 'grading_lab'),
    ]);
    producerSibling = await sibling(stack, producer);
    siblingToken = await tokenFor(stack, producerSibling, 'platform');
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('before the revocation every token works (and each guard has it cached)', async () => {
    expect((await call(stack, 'platform', producer.token)).status).toBe(200);
    expect((await call(stack, 'platform', siblingToken)).status).toBe(200);
    expect((await call(stack, 'search', reader.token)).status).toBe(404);
    expect((await call(stack, 'gis', lab.token)).status).toBe(404);
  });

  it("a revoked producer's token gets 401 on platform within the bound; its sibling credential keeps working", async () => {
    await revoke(stack, producer.client_id);
    await refusedWithin(stack, 'platform', producer.token);
    expect((await call(stack, 'platform', siblingToken)).status).toBe(200);
    // and a token the sibling gets now, too
    expect((await call(stack, 'platform', await tokenFor(stack, producerSibling, 'platform'))).status).toBe(200);
    // the Bearer form is refused as well
    await expectRevoked(await fetch(`${stack.urls.platform}${routes.platform.path}`, { headers: { authorization: `Bearer ${producer.token}` } }));
  });

  it("a revoked non_participant's token gets 401 on search; a revoked grading lab's on gis", async () => {
    await Promise.all([revoke(stack, reader.client_id), revoke(stack, lab.client_id)]);
    await refusedWithin(stack, 'search', reader.token);
    await refusedWithin(stack, 'gis', lab.token);
  });

  it("every service's deny-list holds every revoked client, whatever audience its tokens were for (metrics)", async () => {
    for (const service of ['platform', 'search', 'gis'] as const) {
      const res = await fetch(`${stack.urls[service]}/metrics`);
      expect(await res.text()).toMatch(/^token_revoked_clients(\{[^}]*\})? 3$/m);
    }
  });

  it('each service reports its deny-list consumer (its own group per instance) under readiness', async () => {
    for (const service of ['platform', 'search', 'gis'] as const) {
      const ready = (await (await fetch(`${stack.urls[service]}/health/ready`)).json()) as {
        details: { events: { consumers: { group: string; topic: string }[] } };
      };
      const groups = ready.details.events.consumers.filter((c) => c.topic === 'auth.participants.v1').map((c) => c.group);
      expect(groups).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${service}-revocations\\.`))]));
    }
  });

  it('a new instance (restart, another replica) replays the topic and refuses the revoked tokens from its start', async () => {
    const second = await startTestStack({
      services: ['search'],
      transport: stack.transport,
      env: { search: { AUTH_JWKS_URL: `${stack.urls.auth}/.well-known/jwks.json` } },
    });
    try {
      await refusedWithin(second, 'search', reader.token);
      const other = await participantWithToken(stack, 'non_participant');
      expect((await call(second, 'search', other.token)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});

describe('TokenVerifier and its deny-list (iat against revoked_at)', () => {
  let stack: TestStack;
  let key: { kid: string; key: KeyLike };
  let producer: ParticipantCredentials;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    producer = await onboard(stack, 'producer');
    const db = new Client({ connectionString: stack.databases.auth });
    await db.connect();
    try {
      const { rows } = await db.query<{ kid: string; private_jwk: string }>(`SELECT kid, private_jwk FROM signing_keys WHERE retired_at IS NULL`);
      key = { kid: rows[0].kid, key: (await importJWK(JSON.parse(rows[0].private_jwk) as JWK, 'ES256')) as KeyLike };
    } finally {
      await db.end();
    }
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** A token of the producer's client, signed with auth's real key, issued at `iat`. */
  const token = (iat: number) =>
    new SignJWT({ client_id: producer.client_id, participant_id: producer.participant_id, role: 'producer' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
      .setIssuer(TEST_ISSUER)
      .setSubject(producer.client_id)
      .setAudience(TEST_AUDIENCES.platform)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .setJti(randomUUID())
      .sign(key.key);

  const verifier = () =>
    new TokenVerifier({ issuer: TEST_ISSUER, audience: TEST_AUDIENCES.platform, jwksUrl: `${stack.urls.auth}/.well-known/jwks.json`, tokenTtlSeconds: 3600 });

  it("refuses tokens issued up to revoked_at plus the skew margin, cached or not; accepts later ones and other clients'", async () => {
    const v = verifier();
    const now = Math.floor(Date.now() / 1000);
    const before = await token(now - 600);
    const cached = await token(now - 300);
    await expect(v.verify(cached)).resolves.toMatchObject({ clientId: producer.client_id });

    v.denyList.revoke(producer.client_id, new Date((now - 120) * 1000));
    await expect(v.verify(before)).rejects.toThrow(new TokenError(REVOKED_TOKEN_MESSAGE)); // never seen before
    await expect(v.verify(cached)).rejects.toThrow(REVOKED_TOKEN_MESSAGE); // was in the cache
    await expect(v.verify(await token(now - 60))).rejects.toThrow(REVOKED_TOKEN_MESSAGE); // within the margin
    await expect(v.verify(await token(now))).resolves.toMatchObject({ clientId: producer.client_id }); // past it

    const other = verifier();
    await expect(other.verify(before)).resolves.toMatchObject({ clientId: producer.client_id }); // its own list
  });
});

describe('revocation over the Kafka peer: auth and search as on a cluster', () => {
  let stack: TestStack;
  let transport: KafkaTransport;

  beforeAll(async () => {
    const run = randomUUID().slice(0, 8);
    transport = new KafkaTransport({
      clientId: 'revocation-test',
      brokers: kafkaTestBrokers(),
      logger: pino({ level: 'silent' }),
      maxWaitTimeInMs: 50,
      sessionTimeoutMs: 6000,
      groupPrefix: `revocation-${run}.`,
      topicPrefix: `revocation-${run}.`,
      security: {},
    });
    await transport.connect();
    // loopback as the ingress: the certificate test below forwards a client certificate in `ssl-client-cert`
    stack = await startTestStack({ services: ['auth', 'search'], transport, env: { search: { TRUSTED_PROXIES: 'loopback' } } });
  });

  afterAll(async () => {
    await stack?.close();
    await transport?.close();
  });

  it("a revoked non_participant's cached token gets 401 on search; another client of the same participant keeps working", async () => {
    const reader = await participantWithToken(stack, 'non_participant');
    const readerSibling = await sibling(stack, reader);
    const siblingToken = await tokenFor(stack, readerSibling, 'search');
    expect((await call(stack, 'search', reader.token)).status).toBe(404);
    expect((await call(stack, 'search', siblingToken)).status).toBe(404);
    await revoke(stack, reader.client_id);
    // Kafka adds the relay's publish and a fetch (50 ms wait here) to the in-process path; the group may still be joining.
    await eventually(
      async () => {
        const r = await call(stack, 'search', reader.token);
        if (r.status === 401) return r;
        expect(r.status).toBe(404);
        return undefined;
      },
      'search refuses the revoked token over Kafka',
      20_000,
    ).then(expectRevoked);
    expect((await call(stack, 'search', siblingToken)).status).toBe(404);
  });

  it('a legacy client certificate registered, then removed, reaches search over Kafka (client_certificate.changed)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtp-revocation-mtls-'));
    try {
      const cert = issueDevCertificate({ outDir: dir, name: 'erp', commonName: 'legacy reader', usage: 'client' });
      const reader = await onboard(stack, 'non_participant', { integration_started_at: '2021-01-01T00:00:00Z' });
      const certificates = `${stack.urls.auth}/admin/participants/${reader.participant_id}/certificates`;
      const created = await fetch(certificates, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ certificate_pem: cert.certPem }),
      });
      expect(created.status).toBe(201);
      const { certificate_id } = (await created.json()) as { certificate_id: string };
      const legacyCall = () => fetch(`${stack.urls.search}${routes.search.path}`, { headers: { 'ssl-client-cert': encodeURIComponent(cert.certPem) } });
      await eventually(async () => ((await legacyCall()).status === 404 ? true : undefined), 'search accepts the registered certificate over Kafka', 20_000);
      expect((await fetch(`${certificates}/${certificate_id}`, { method: 'DELETE', headers: admin })).status).toBe(204);
      const refused = await eventually(
        async () => {
          const r = await legacyCall();
          return r.status === 401 ? r : undefined;
        },
        'search refuses the removed certificate over Kafka',
        20_000,
      );
      expect(await refused.json()).toMatchObject({ error: 'invalid_token', message: expect.stringContaining('not registered') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
