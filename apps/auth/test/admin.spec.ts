import { Client } from 'pg';
import { IncomingMessage } from '@dtp/events';
import { Topics, validateEnvelope } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { onboard, TEST_ADMIN_TOKEN, TestStack } from '@dtp/testing';

type Json = Record<string, unknown>;
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe('admin API', () => {
  let stack: TestStack;
  const events: IncomingMessage[] = [];

  beforeAll(async () => {
    // 'every admin route needs the admin token' sends 12 wrong tokens; the lockout has its own tests (admin-listener.spec.ts).
    stack = await startTestStack({ services: ['auth'], env: { auth: { ADMIN_TOKEN_FAILURE_LIMIT: '100' } } });
    await stack.transport.subscribe({
      topic: Topics.AUTH_PARTICIPANTS,
      group: 'admin-spec',
      fromBeginning: true,
      handler: async (m) => {
        events.push(m);
      },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  const post = (path: string, body?: unknown, headers: Record<string, string> = admin) =>
    fetch(`${stack.urls.auth}${path}`, {
      method: 'POST',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const get = (path: string, headers: Record<string, string> = admin) => fetch(`${stack.urls.auth}${path}`, { headers });

  async function waitFor<T>(probe: () => T | undefined, ms = 5000): Promise<T> {
    const until = Date.now() + ms;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  describe('POST /admin/participants', () => {
    it('onboards with provenance and publishes participant.onboarded through the outbox', async () => {
      const res = await post('/admin/participants', {
        name: 'Okavango Diamonds',
        role: 'producer',
        provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' },
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as Json;
      expect(Object.keys(created).sort()).toEqual(['client_id', 'client_secret', 'participant_id', 'role']);

      const message = await waitFor(() => events.find((e) => e.key === created.participant_id));
      const checked = validateEnvelope(Topics.AUTH_PARTICIPANTS, message.value);
      expect(checked.ok).toBe(true);
      expect(message.value).toMatchObject({
        event_type: 'participant.onboarded',
        key: created.participant_id,
        revision: 1,
        schema_version: 1,
        data: {
          participant_id: created.participant_id,
          name: 'Okavango Diamonds',
          role: 'producer',
          provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' },
        },
      });
      expect(JSON.stringify(message.value)).not.toContain(created.client_secret as string);
    });

    it('stores only a scrypt hash of the secret', async () => {
      const p = await onboard(stack, 'retailer');
      const db = new Client({ connectionString: stack.databases.auth });
      await db.connect();
      try {
        const { rows } = await db.query<{ secret_hash: string }>('SELECT secret_hash FROM clients WHERE client_id = $1', [p.client_id]);
        expect(rows[0].secret_hash).toMatch(/^scrypt\$14\$8\$1\$/);
        expect(rows[0].secret_hash).not.toContain(p.client_secret);
        const dump = await db.query(`SELECT row_to_json(c)::text AS j FROM clients c`);
        expect(dump.rows.map((r: { j: string }) => r.j).join()).not.toContain(p.client_secret);
      } finally {
        await db.end();
      }
    });

    it('answers 422 naming every bad field', async () => {
      const res = await post('/admin/participants', { role: 'wizard', provenance: { name: 'x', type: 'mine', country_code: 'bw' }, extra: 1 });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: (string | number)[]; type: string }[] };
      const locs = body.detail.map((d) => d.loc.join('.'));
      expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.role', 'body.provenance.country_code', 'body.extra']));
    });

    it('answers 422 for a body that is not an object, and for an overlong name', async () => {
      const arr = await fetch(`${stack.urls.auth}/admin/participants`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: '[]',
      });
      expect(arr.status).toBe(422);
      const long = await post('/admin/participants', { name: 'x'.repeat(201), role: 'producer' });
      expect(long.status).toBe(422);
      expect(JSON.stringify(await long.json())).toContain('name');
    });

    it('accepts a participant without provenance', async () => {
      const res = await post('/admin/participants', { name: 'Lab One', role: 'grading_lab' });
      expect(res.status).toBe(201);
      const { participant_id } = (await res.json()) as Json;
      const shown = (await (await get(`/admin/participants/${String(participant_id)}`)).json()) as Json;
      expect(shown.provenance).toBeNull();
    });
    it('takes integration_started_at as a date or a date-time with a zone, and answers 422 (not 500) for other ISO 8601 forms', async () => {
      const started = async (value: string) => {
        const res = await post('/admin/participants', { name: 'Legacy ERP', role: 'manufacturer', integration_started_at: value });
        expect(res.status).toBe(201);
        const { participant_id } = (await res.json()) as Json;
        return ((await (await get(`/admin/participants/${String(participant_id)}`)).json()) as Json).integration_started_at;
      };
      expect(await started('2021-05-01')).toBe('2021-05-01T00:00:00.000Z');
      expect(await started('2021-05-01T02:30:00+02:00')).toBe('2021-05-01T00:30:00.000Z');
      for (const value of ['2021-W05-1', '2021-123', '20210501T093000Z', '2021-05-01T09', '2021-05-01T09:30:00,5Z', '2021-05-01T09:30:00']) {
        const res = await post('/admin/participants', { name: 'Legacy ERP', role: 'manufacturer', integration_started_at: value });
        expect({ value, status: res.status }).toEqual({ value, status: 422 });
        const body = (await res.json()) as { detail: { loc: string[]; type: string }[] };
        expect(body.detail).toEqual([expect.objectContaining({ loc: ['body', 'integration_started_at'], type: 'datetime_parsing' })]);
      }
    });
  });

  describe('GET /admin/participants/{id}', () => {
    it('shows the participant and its client ids, never secrets or hashes', async () => {
      const p = await onboard(stack, 'producer', { name: 'Show Me', provenance: { name: 'Pit', type: 'mine' } });
      const res = await get(`/admin/participants/${p.participant_id}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body).toEqual({
        participant_id: p.participant_id,
        name: 'Show Me',
        role: 'producer',
        provenance: { name: 'Pit', type: 'mine', country_code: null },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        integration_started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        clients: [{ client_id: p.client_id, created_at: expect.any(String), revoked_at: null }],
      });
      // not given at onboarding: the integration started then
      expect(body.integration_started_at).toBe(body.created_at);
      expect(JSON.stringify(body)).not.toMatch(/secret|scrypt/);
    });

    it('404 for an unknown participant and for a malformed id (checked before any query)', async () => {
      const missing = await get('/admin/participants/3f1c2f8e-1111-4222-8333-444455556666');
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ reason: 'participant_not_found' });
      const bad = await get('/admin/participants/not-a-uuid');
      expect(bad.status).toBe(404);
      expect(await bad.json()).toEqual({ message: 'participant not found', reason: 'participant_not_found' });
    });
  });

  describe('credentials and revocation', () => {
    it('adds credentials, and revoking is idempotent and shown', async () => {
      const p = await onboard(stack, 'manufacturer');
      const add = await post(`/admin/participants/${p.participant_id}/credentials`);
      expect(add.status).toBe(201);
      const second = (await add.json()) as Json;
      expect(second).toEqual({ participant_id: p.participant_id, client_id: expect.any(String), client_secret: expect.any(String), role: 'manufacturer' });

      expect((await post(`/admin/clients/${p.client_id}/revoke`)).status).toBe(204);
      const first = (await (await get(`/admin/participants/${p.participant_id}`)).json()) as { clients: { client_id: string; revoked_at: string | null }[] };
      const revokedAt = first.clients.find((c) => c.client_id === p.client_id)!.revoked_at;
      expect(revokedAt).toEqual(expect.any(String));
      expect(first.clients.find((c) => c.client_id === second.client_id)!.revoked_at).toBeNull();

      expect((await post(`/admin/clients/${p.client_id}/revoke`)).status).toBe(204);
      const again = (await (await get(`/admin/participants/${p.participant_id}`)).json()) as { clients: { client_id: string; revoked_at: string | null }[] };
      expect(again.clients.find((c) => c.client_id === p.client_id)!.revoked_at).toBe(revokedAt);
    });

    it('404 for unknown participants and clients', async () => {
      const add = await post('/admin/participants/3f1c2f8e-1111-4222-8333-444455556666/credentials');
      expect(add.status).toBe(404);
      const revoke = await post('/admin/clients/dtp_nope/revoke');
      expect(revoke.status).toBe(404);
      expect(await revoke.json()).toMatchObject({ reason: 'client_not_found' });
    });
  });

  it('every admin route needs the admin token', async () => {
    const p = await onboard(stack, 'producer');
    const none = {};
    const wrong = { authorization: 'Bearer wrong-admin-token-000' };
    const bare = { authorization: TEST_ADMIN_TOKEN };
    for (const headers of [none, wrong, bare]) {
      expect((await post('/admin/participants', { name: 'x', role: 'producer' }, headers)).status).toBe(401);
      expect((await get(`/admin/participants/${p.participant_id}`, headers)).status).toBe(401);
      expect((await post(`/admin/participants/${p.participant_id}/credentials`, undefined, headers)).status).toBe(401);
      expect((await post(`/admin/clients/${p.client_id}/revoke`, undefined, headers)).status).toBe(401);
    }
    // the client was not revoked by the refused calls
    const shown = (await (await get(`/admin/participants/${p.participant_id}`)).json()) as { clients: { revoked_at: string | null }[] };
    expect(shown.clients).toHaveLength(1);
    expect(shown.clients[0].revoked_at).toBeNull();
  });
});
