import pino from 'pino';
import { IncomingMessage, InProcessTransport } from '@dtp/events';
import { ClientRevokedData, EventEnvelope, Topics, validateEnvelope } from '@dtp/domain';
import { loadConfig } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { onboard, TEST_ADMIN_TOKEN, TEST_ISSUER, TestStack, sqlRows } from '@dtp/testing';
import { authService } from '../src/app';
import { runCli } from '../src/cli/commands';
import { AuthConfig } from '../src/config';

/**
 * Revoking a client publishes `client.revoked` on auth.participants.v1 through the outbox, in the revocation's
 * transaction, from the admin API and the CLI; on the in-process bus (which keeps no log) a restarted auth
 * announces the revocations whose tokens may still be alive.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
type Revoked = EventEnvelope<ClientRevokedData, 'client.revoked'>;

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function collect(transport: { subscribe: InProcessTransport['subscribe'] }, group: string): Promise<IncomingMessage[]> {
  const got: IncomingMessage[] = [];
  return transport.subscribe({ topic: Topics.AUTH_PARTICIPANTS, group, fromBeginning: true, handler: async (m) => void got.push(m) }).then(() => got);
}

const revocationsOf = (events: IncomingMessage[], clientId: string) =>
  events.filter((e) => (e.value as { event_type?: string }).event_type === 'client.revoked' && e.key === clientId).map((e) => e.value as Revoked);

describe('client.revoked events', () => {
  let stack: TestStack;
  let events: IncomingMessage[];

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    events = await collect(stack.transport, 'revocation-events-spec');
  });

  afterAll(async () => {
    await stack?.close();
  });

  const revoke = (clientId: string) => fetch(`${stack.urls.auth}/admin/clients/${encodeURIComponent(clientId)}/revoke`, { method: 'POST', headers: admin });
  const revokedAtShown = async (participantId: string, clientId: string) => {
    const shown = (await (await fetch(`${stack.urls.auth}/admin/participants/${participantId}`, { headers: admin })).json()) as {
      clients: { client_id: string; revoked_at: string | null }[];
    };
    return shown.clients.find((c) => c.client_id === clientId)!.revoked_at;
  };

  it('the admin API publishes client.revoked (key client_id, revision 1, the recorded revoked_at), a valid event of the topic', async () => {
    const p = await onboard(stack, 'producer');
    expect((await revoke(p.client_id)).status).toBe(204);
    const [event] = await waitFor(() => (revocationsOf(events, p.client_id).length > 0 ? revocationsOf(events, p.client_id) : undefined), 'client.revoked');
    expect(validateEnvelope(Topics.AUTH_PARTICIPANTS, event)).toEqual({ ok: true, envelope: event });
    expect(event).toMatchObject({
      event_type: 'client.revoked',
      key: p.client_id,
      revision: 1,
      schema_version: 1,
      data: { client_id: p.client_id, participant_id: p.participant_id, revoked_at: await revokedAtShown(p.participant_id, p.client_id) },
    });
    expect(event.occurred_at).toBe(event.data.revoked_at);
    expect(JSON.stringify(event)).not.toContain(p.client_secret);
  });

  it('revoking again keeps the first time and announces it again with the same revision and time', async () => {
    const p = await onboard(stack, 'retailer');
    expect((await revoke(p.client_id)).status).toBe(204);
    const first = await waitFor(() => revocationsOf(events, p.client_id)[0], 'the first client.revoked');
    expect((await revoke(p.client_id)).status).toBe(204);
    const both = await waitFor(() => (revocationsOf(events, p.client_id).length === 2 ? revocationsOf(events, p.client_id) : undefined), 'the second');
    expect(both[1].data).toEqual(first.data);
    expect(both[1].revision).toBe(1);
    expect(await revokedAtShown(p.participant_id, p.client_id)).toBe(first.data.revoked_at);
  });

  it('an unknown client: 404 and no event', async () => {
    const before = events.length;
    expect((await revoke('dtp_no_such_client')).status).toBe(404);
    const rows = await sqlRows(stack.databases.auth!, `SELECT 1 FROM outbox WHERE event_type = 'client.revoked' AND key = 'dtp_no_such_client'`);
    expect(rows).toEqual([]);
    expect(events.slice(before).some((e) => e.key === 'dtp_no_such_client')).toBe(false);
  });

  it("the event is written in the revocation's transaction: when the outbox refuses it, the client stays unrevoked", async () => {
    const p = await onboard(stack, 'producer');
    const db = stack.databases.auth!;
    await sqlRows(db, `ALTER TABLE outbox ADD CONSTRAINT test_no_revocations CHECK (event_type <> 'client.revoked') NOT VALID`);
    try {
      expect((await revoke(p.client_id)).status).toBeGreaterThanOrEqual(500);
      expect(await revokedAtShown(p.participant_id, p.client_id)).toBeNull();
    } finally {
      await sqlRows(db, 'ALTER TABLE outbox DROP CONSTRAINT test_no_revocations');
    }
    expect((await revoke(p.client_id)).status).toBe(204);
    expect(await revokedAtShown(p.participant_id, p.client_id)).toEqual(expect.any(String));
  });

  it('the CLI publishes it too (its outbox row is relayed by the running service)', async () => {
    const p = await onboard(stack, 'grading_lab');
    const out: string[] = [];
    const code = await runCli(
      ['revoke-client', '--client-id', p.client_id],
      { AUTH_ISSUER: TEST_ISSUER, DATABASE_URL: stack.databases.auth! },
      { out: (l) => out.push(l), err: () => undefined },
    );
    expect(code).toBe(0);
    const event = await waitFor(() => revocationsOf(events, p.client_id)[0], 'client.revoked from the CLI');
    expect(event.data).toEqual({ client_id: p.client_id, participant_id: p.participant_id, revoked_at: expect.any(String) });
  });

  // Last: it stops the stack's auth.
  it('a restarted auth on the in-process bus announces the revocations of the last token lifetime, not older ones', async () => {
    const [recent, old, live] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'producer'), onboard(stack, 'producer')]);
    expect((await revoke(recent.client_id)).status).toBe(204);
    expect((await revoke(old.client_id)).status).toBe(204);
    const db = stack.databases.auth!;
    await sqlRows(db, `UPDATE clients SET revoked_at = now() - interval '1 day' WHERE client_id = $1`, [old.client_id]);

    // The restart: the first auth (whose relay holds the database's publishing lock) goes away, a new one starts.
    await stack.services.auth!.close();
    delete stack.services.auth;
    const bus = new InProcessTransport(() => undefined);
    const logger = pino({ level: 'silent' });
    const config = loadConfig('auth', AuthConfig, {
      DATABASE_URL: db,
      AUTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      AUTH_ISSUER: TEST_ISSUER,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    });
    const again = await authService.start(config, { transport: bus }, logger);
    try {
      const seen = await collect(bus, 'after-restart');
      const announced = await waitFor(() => revocationsOf(seen, recent.client_id)[0], 'the recent revocation announced again');
      expect(announced.data.participant_id).toBe(recent.participant_id);
      // Everything the restart had to publish is out once the outbox is empty.
      await waitFor(
        async () => ((await sqlRows(db, 'SELECT 1 FROM outbox WHERE published_at IS NULL')).length === 0 ? true : undefined),
        'the outbox to drain',
      );
      expect(revocationsOf(seen, old.client_id)).toEqual([]);
      expect(revocationsOf(seen, live.client_id)).toEqual([]);
    } finally {
      await again.close();
      await bus.close();
    }
  });
});
