import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EventTypes, makeEnvelope, Topics } from '@dtp/domain';
import type {
  CloudEvent,
  EventFeedPage,
  GradingSubmittedData,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookWithSecret,
} from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { verifyWebhook } from '../../../libs/sdk/src/webhooks';
import { EventRetention } from '../src/webhooks/event-retention';
import { participantEvent, participantEventsCtes } from '../src/webhooks/participant-events';
import { call, PlatformFixture, register, startPlatform, waitFor } from './helpers';
import { decide, knownParticipant, ship } from './shipments-helpers';
import { Receiver, startReceiver } from './webhook-receiver';

// Secrets encrypted at rest, as production keeps them (webhook-secrets.spec.ts tests the key itself).
const FAST = {
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE_MS: '50,100,200',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

describe('webhooks and the event feed', () => {
  let f: PlatformFixture;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: Receiver['answer']) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  const subscribe = async (who: ParticipantWithToken, url: string, extra: Record<string, unknown> = {}) => {
    const res = await call<WebhookWithSecret>(f, 'POST', '/webhooks', who.token, { url, ...extra });
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    f = await startPlatform(FAST);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await f?.close();
  });

  describe('subscriptions', () => {
    it('creates, lists, reads, changes, rotates and deletes a webhook; the secret is shown only on creation and rotation', async () => {
      const p = await knownParticipant(f, 'manufacturer');
      const created = await subscribe(p, 'http://127.0.0.1:9/a', { event_types: ['dtp.shipment.inbound'], description: 'ERP' });
      expect(created).toEqual({
        webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'http://127.0.0.1:9/a',
        event_types: ['dtp.shipment.inbound'],
        enabled: true,
        disabled_reason: null,
        description: 'ERP',
        created_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
      const { secret, ...shown } = created;
      expect((await call<WebhookList>(f, 'GET', '/webhooks', p.token)).body).toEqual({ results: [shown] });
      expect((await call<Webhook>(f, 'GET', `/webhooks/${created.webhook_id}`, p.token)).body).toEqual(shown);
      const patched = await call<Webhook>(f, 'PATCH', `/webhooks/${created.webhook_id}`, p.token, { event_types: null, enabled: false });
      expect(patched.body).toEqual({ ...shown, event_types: null, enabled: false });
      const rotated = await call<WebhookWithSecret>(f, 'POST', `/webhooks/${created.webhook_id}/rotate-secret`, p.token);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(secret);
      expect((await call(f, 'DELETE', `/webhooks/${created.webhook_id}`, p.token)).status).toBe(204);
      expect((await call(f, 'GET', `/webhooks/${created.webhook_id}`, p.token)).status).toBe(404);
    });

    it('takes null for event_types (every type) and description (none) on creation, and a null description removes it', async () => {
      const p = await knownParticipant(f, 'manufacturer');
      // The OpenAPI document gives both as nullable; until 2026-12-07 creation refused null with 422.
      const created = await subscribe(p, 'http://127.0.0.1:9/n', { event_types: null, description: null });
      expect(created).toMatchObject({ event_types: null, description: null });
      const described = await call<Webhook>(f, 'PATCH', `/webhooks/${created.webhook_id}`, p.token, { description: 'ERP' });
      expect(described.body.description).toBe('ERP');
      const cleared = await call<Webhook>(f, 'PATCH', `/webhooks/${created.webhook_id}`, p.token, { description: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ ...described.body, description: null });
      expect((await call<Webhook>(f, 'GET', `/webhooks/${created.webhook_id}`, p.token)).body.description).toBeNull();
    });

    it('takes webhook and delivery ids in either case (RFC 9562: UUIDs are case-insensitive on input)', async () => {
      // Before: 404 for an uppercase id, which SQL Server's uniqueidentifier, for one, writes.
      const p = await knownParticipant(f, 'manufacturer');
      const { secret: _secret, ...shown } = await subscribe(p, 'http://127.0.0.1:9/u');
      const upper = shown.webhook_id.toUpperCase();
      expect((await call<Webhook>(f, 'GET', `/webhooks/${upper}`, p.token)).body).toEqual(shown);
      expect((await call(f, 'POST', `/webhooks/${upper}/test`, p.token)).status).toBe(202);
      const [delivery] = (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${upper}/deliveries`, p.token)).body.results;
      const retried = await call<WebhookDelivery>(f, 'POST', `/webhooks/${upper}/deliveries/${delivery.delivery_id.toUpperCase()}/retry`, p.token);
      expect({ status: retried.status, delivery_id: retried.body.delivery_id }).toEqual({ status: 202, delivery_id: delivery.delivery_id });
      expect((await call(f, 'DELETE', `/webhooks/${upper}`, p.token)).status).toBe(204);
      expect((await call(f, 'GET', `/webhooks/${shown.webhook_id}`, p.token)).status).toBe(404);
    });

    it("answers 404 for another participant's webhook, whatever the operation", async () => {
      const owner = await knownParticipant(f, 'producer');
      const other = await knownParticipant(f, 'producer');
      const w = await subscribe(owner, 'http://127.0.0.1:9/x');
      for (const [method, path] of [
        ['GET', `/webhooks/${w.webhook_id}`],
        ['PATCH', `/webhooks/${w.webhook_id}`],
        ['DELETE', `/webhooks/${w.webhook_id}`],
        ['POST', `/webhooks/${w.webhook_id}/rotate-secret`],
        ['POST', `/webhooks/${w.webhook_id}/test`],
        ['GET', `/webhooks/${w.webhook_id}/deliveries`],
        ['POST', `/webhooks/${w.webhook_id}/deliveries/${w.webhook_id}/retry`],
        ['GET', '/webhooks/not-a-uuid'],
      ] as const) {
        const res = await call(f, method, path, other.token, method === 'PATCH' ? { enabled: false } : undefined);
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
      expect((await call<WebhookList>(f, 'GET', '/webhooks', other.token)).body.results).toEqual([]);
      expect((await call<Webhook>(f, 'GET', `/webhooks/${w.webhook_id}`, owner.token)).body.enabled).toBe(true);
    });

    it('allows at most 10 webhooks per participant (409), and refuses bad bodies with 422 naming the field', async () => {
      const p = await knownParticipant(f, 'retailer');
      for (let i = 0; i < 10; i++) await subscribe(p, `http://127.0.0.1:9/${i}`);
      const eleventh = await call<{ reason: string }>(f, 'POST', '/webhooks', p.token, { url: 'http://127.0.0.1:9/11' });
      expect(eleventh.status).toBe(409);
      expect(eleventh.body.reason).toBe('too_many_webhooks');
      for (const [body, field] of [
        [{ url: 'ftp://example.com/x' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{}, 'url'],
        [{ url: 'https://example.com', event_types: ['dtp.nope'] }, 'event_types'],
        [{ url: 'https://example.com', extra: 1 }, 'extra'],
      ] as const) {
        const res = await call<{ detail: { loc: string[] }[] }>(f, 'POST', '/webhooks', p.token, body);
        expect(res.status).toBe(422);
        expect(res.body.detail.map((d) => d.loc.at(-1))).toContain(field);
      }
    });

    it('refuses roles that do not use platform and calls without a token', async () => {
      expect((await call(f, 'GET', '/webhooks', null)).status).toBe(401);
      expect((await call(f, 'GET', '/events', null)).status).toBe(401);
    });
  });

  describe('who gets what', () => {
    /** Every event a participant received, by webhook and on the feed. */
    const feedOf = async (who: ParticipantWithToken): Promise<CloudEvent<Record<string, unknown>>[]> => {
      const out: CloudEvent<Record<string, unknown>>[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await call<EventFeedPage>(f, 'GET', `/events?limit=2${after ? `&after=${after}` : ''}`, who.token);
        expect(page.status).toBe(200);
        out.push(...(page.body.events as CloudEvent<Record<string, unknown>>[]));
        if (page.body.events.length === 0) return out;
        after = page.body.next_cursor;
      }
    };

    it('walks every event type: each reaches exactly the participants it concerns, by webhook (signed) and on the feed, with the same ids', async () => {
      const sender = await knownParticipant(f, 'producer');
      const recipient = await knownParticipant(f, 'manufacturer');
      const bystander = await knownParticipant(f, 'producer');
      const rs = await receiver();
      const rr = await receiver();
      const rb = await receiver();
      const ws = await subscribe(sender, rs.url);
      const wr = await subscribe(recipient, rr.url);
      await subscribe(bystander, rb.url);
      // the bystander has diamonds of its own (events about them are its own, and nobody else's)
      const own = await register(f, bystander);

      // registration, shipment out, accepted
      const d1 = await register(f, sender);
      const s1 = await ship(f, sender, recipient.participant_id, 'rough', [d1.diamond_id]);
      expect((await decide(f, recipient, s1.id, 'accept', [d1.diamond_id])).status).toBe(200);
      // a second shipment, rejected
      const d2 = await register(f, sender);
      const s2 = await ship(f, sender, recipient.participant_id, 'rough', [d2.diamond_id]);
      expect((await decide(f, recipient, s2.id, 'reject', [d2.diamond_id], '')).status).toBe(200);
      // deletion
      const d3 = await register(f, sender);
      expect((await call(f, 'POST', '/bulk/diamonds/delete', sender.token, { diamonds: [{ diamond_id: d3.diamond_id }] })).status).toBe(200);
      // a lab grading of d1 (held by the recipient now) and a GIS validation answer about it
      const grading: GradingSubmittedData = {
        diamond_id: d1.diamond_id,
        grading_id: `gis-${d1.diamond_id}`,
        submitted_by: null,
        data: {
          grader_certificate_number: 'C-1',
          grader_report_number: 'R-1',
          grading_lab: 'Other',
          graded_date: '2024-05-01T00:00:00Z',
          carats: '1.01',
          shape: 'Round',
          colour: 'D',
        },
      };
      const requestId = '3b241101-e2bb-4255-8caf-4136c566a962';
      await f.stack.transport.publish([
        { topic: Topics.GIS_GRADINGS, key: d1.diamond_id, value: makeEnvelope({ event_type: EventTypes.GRADING_SUBMITTED, data: grading, revision: 1 }) },
        {
          topic: Topics.GIS_VALIDATIONS,
          key: requestId,
          value: makeEnvelope({
            event_type: EventTypes.VALIDATION_ANSWERED,
            data: {
              request_id: requestId,
              diamond_id: d1.diamond_id,
              verification_status: 'Verified',
              lab_participant_id: null,
              answered_at: '2025-01-01T00:00:00.000Z',
            },
            revision: 1,
          }),
        },
      ]);

      const senderTypes = [
        ['dtp.diamond.updated', d1.diamond_id, 'registered'],
        ['dtp.diamond.updated', d1.diamond_id, 'shipped'],
        ['dtp.shipment.accepted', s1.id],
        ['dtp.diamond.updated', d1.diamond_id, 'accepted'],
        ['dtp.diamond.updated', d2.diamond_id, 'registered'],
        ['dtp.diamond.updated', d2.diamond_id, 'shipped'],
        ['dtp.diamond.updated', d2.diamond_id, 'rejected'],
        ['dtp.shipment.rejected', s2.id],
        ['dtp.diamond.updated', d3.diamond_id, 'registered'],
        ['dtp.diamond.deleted', d3.diamond_id],
      ];
      const recipientTypes = [
        ['dtp.shipment.inbound', s1.id],
        ['dtp.diamond.updated', d1.diamond_id, 'accepted'],
        ['dtp.shipment.inbound', s2.id],
        ['dtp.grading.received', d1.diamond_id],
        ['dtp.validation.answered', d1.diamond_id],
      ];
      const shape = (e: CloudEvent<Record<string, unknown>>) => (e.type === 'dtp.diamond.updated' ? [e.type, e.subject, e.data.action] : [e.type, e.subject]);
      // The feed: each participant's own events, in the order recorded (the accept's diamond update and the
      // shipment event are written in one transaction; their relative order is the transaction's).
      const sorted = (l: unknown[][]) => [...l].map((x) => JSON.stringify(x)).sort();
      const senderFeed = await waitFor('sender events', async () => {
        const evs = await feedOf(sender);
        return evs.length >= senderTypes.length ? evs : null;
      });
      expect(sorted(senderFeed.map(shape))).toEqual(sorted(senderTypes));
      const recipientFeed = await waitFor('recipient events', async () => {
        const evs = await feedOf(recipient);
        return evs.length >= recipientTypes.length ? evs : null;
      });
      expect(sorted(recipientFeed.map(shape))).toEqual(sorted(recipientTypes));
      const bystanderFeed = await feedOf(bystander);
      expect(bystanderFeed.map(shape)).toEqual([['dtp.diamond.updated', own.diamond_id, 'registered']]);

      // The webhooks got the same events (same ids), each signed; nobody got anyone else's.
      await waitFor(
        'webhook deliveries',
        async () => rs.accepted.length >= senderFeed.length && rr.accepted.length >= recipientFeed.length && rb.accepted.length >= 1,
      );
      await new Promise((r) => setTimeout(r, 200)); // nothing more arrives
      expect(rs.accepted.map((r) => r.event.id).sort()).toEqual(senderFeed.map((e) => e.id).sort());
      expect(rr.accepted.map((r) => r.event.id).sort()).toEqual(recipientFeed.map((e) => e.id).sort());
      expect(rb.accepted.map((r) => r.event.id)).toEqual(bystanderFeed.map((e) => e.id));
      const senderWh = new StandardWebhook(ws.secret);
      const recipientWh = new StandardWebhook(wr.secret);
      for (const r of rs.accepted) expect(senderWh.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      for (const r of rr.accepted) expect(recipientWh.verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      for (const r of rr.accepted) expect(() => senderWh.verify(r.body, r.headers as Record<string, string>)).toThrow();
      for (const r of rr.accepted) expect(verifyWebhook(r.body, r.headers as Record<string, string>, wr.secret).id).toBe(r.event.id);

      // CloudEvents 1.0 structured mode; the data of each type
      const inbound = recipientFeed.find((e) => e.type === 'dtp.shipment.inbound' && e.subject === s1.id)!;
      expect(inbound).toEqual({
        specversion: '1.0',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        source: expect.stringMatching(/^http/),
        type: 'dtp.shipment.inbound',
        time: expect.any(String),
        subject: s1.id,
        datacontenttype: 'application/json',
        data: s1,
      });
      const accepted = senderFeed.find((e) => e.type === 'dtp.shipment.accepted')!;
      expect(accepted.data).toEqual({ shipment_id: s1.id, diamond_ids: [d1.diamond_id] });
      const registered = senderFeed.find((e) => e.type === 'dtp.diamond.updated' && e.data.action === 'registered' && e.subject === d1.diamond_id)!;
      expect(registered.data).toEqual({ action: 'registered', ...d1 });
      const deleted = senderFeed.find((e) => e.type === 'dtp.diamond.deleted')!;
      expect(deleted.data).toEqual({ diamond_id: d3.diamond_id });
      const graded = recipientFeed.find((e) => e.type === 'dtp.grading.received')!;
      expect(graded.data).toMatchObject({ diamond_id: d1.diamond_id, grading_id: grading.grading_id, grading: grading.data });
      const validated = recipientFeed.find((e) => e.type === 'dtp.validation.answered')!;
      expect(validated.data).toEqual({
        diamond_id: d1.diamond_id,
        request_id: requestId,
        verification_status: 'Verified',
        answered_at: '2025-01-01T00:00:00.000Z',
      });
    });

    it('delivers only the subscribed types', async () => {
      const p = await knownParticipant(f, 'producer');
      const r = await receiver();
      await subscribe(p, r.url, { event_types: ['dtp.diamond.deleted'] });
      const d = await register(f, p);
      expect((await call(f, 'POST', '/bulk/diamonds/delete', p.token, { diamonds: [{ diamond_id: d.diamond_id }] })).status).toBe(200);
      await waitFor('the deletion', async () => r.accepted.length >= 1);
      await new Promise((res) => setTimeout(res, 200));
      expect(r.accepted.map((x) => x.event.type)).toEqual(['dtp.diamond.deleted']);
    });
  });

  describe('signatures', () => {
    it('signs with both secrets, space separated, after a rotation; each verifies with standardwebhooks and the SDK', async () => {
      const p = await knownParticipant(f, 'producer');
      const r = await receiver();
      const w = await subscribe(p, r.url);
      const rotated = (await call<WebhookWithSecret>(f, 'POST', `/webhooks/${w.webhook_id}/rotate-secret`, p.token)).body;
      const ping = await call<{ delivery_id: string; status: string }>(f, 'POST', `/webhooks/${w.webhook_id}/test`, p.token);
      expect(ping.status).toBe(202);
      expect(ping.body.status).toBe('pending');
      await waitFor('the ping', async () => r.accepted.length >= 1);
      const got = r.accepted[0];
      expect(got.event.type).toBe('dtp.ping');
      const sigs = String(got.headers['webhook-signature']).split(' ');
      expect(sigs).toHaveLength(2);
      expect(sigs.every((s) => s.startsWith('v1,'))).toBe(true);
      expect(got.headers['webhook-id']).toBe(got.event.id);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      for (const secret of [w.secret, rotated.secret]) {
        expect(new StandardWebhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(got.body));
        expect(verifyWebhook(got.body, got.headers as Record<string, string>, secret).type).toBe('dtp.ping');
      }
      expect(() => verifyWebhook(got.body.replace('ping', 'pong'), got.headers as Record<string, string>, rotated.secret)).toThrow(/signature/);
      // the log shows it delivered (stored just after the receiver answered); the ping is not on the feed
      const log = await waitFor('the ping stored as delivered', async () => {
        const got = (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${w.webhook_id}/deliveries`, p.token)).body.results;
        return got[0]?.status === 'pending' ? null : got;
      });
      expect(log[0]).toMatchObject({
        delivery_id: ping.body.delivery_id,
        type: 'dtp.ping',
        status: 'delivered',
        attempts: 1,
        last_status_code: 204,
      });
      expect((await call<EventFeedPage>(f, 'GET', '/events', p.token)).body.events).toEqual([]);
    });
  });

  describe('operations', () => {
    it('purges events (and their deliveries) past EVENT_RETENTION_DAYS, keeping younger ones', async () => {
      const p = await knownParticipant(f, 'producer');
      const w = await subscribe(p, 'http://127.0.0.1:9/never');
      const old = participantEvent(
        p.participant_id,
        'dtp.diamond.deleted',
        'old-subject',
        { diamond_id: 'old-subject' },
        new Date(Date.now() - 31 * 86400_000),
      );
      const young = participantEvent(
        p.participant_id,
        'dtp.diamond.deleted',
        'young-subject',
        { diamond_id: 'young-subject' },
        new Date(Date.now() - 29 * 86400_000),
      );
      const c = participantEventsCtes([old, young], 1);
      await f.db.query(`WITH ${c.sql} SELECT 1`, c.values);
      const before = await f.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [w.webhook_id]);
      expect(before.rows[0].n).toBe(2);
      expect(await f.stack.services.platform!.app.get(EventRetention).purge()).toBeGreaterThanOrEqual(1);
      const feed = (await call<EventFeedPage>(f, 'GET', '/events', p.token)).body.events.map((e) => e.subject);
      expect(feed).toEqual(['young-subject']);
      const after = await f.db.query(`SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1`, [w.webhook_id]);
      expect(after.rows.map((r) => r.event_id)).toEqual([young.event_id]);
    });

    it("deleting a webhook deletes its deliveries and no other webhook's", async () => {
      const p = await knownParticipant(f, 'producer');
      const gone = await subscribe(p, 'http://127.0.0.1:9/gone');
      const kept = await subscribe(p, 'http://127.0.0.1:9/kept');
      const c = participantEventsCtes([participantEvent(p.participant_id, 'dtp.diamond.deleted', 'a-subject', { diamond_id: 'a-subject' }, new Date())], 1);
      await f.db.query(`WITH ${c.sql} SELECT 1`, c.values);
      const count = async (id: string) =>
        (await f.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [id])).rows[0].n as number;
      expect([await count(gone.webhook_id), await count(kept.webhook_id)]).toEqual([1, 1]);
      expect((await call(f, 'DELETE', `/webhooks/${gone.webhook_id}`, p.token)).status).toBe(204);
      expect([await count(gone.webhook_id), await count(kept.webhook_id)]).toEqual([0, 1]);
    });

    it('exposes the delivery metrics', async () => {
      const p = await knownParticipant(f, 'producer');
      const r = await receiver();
      const w = await subscribe(p, r.url);
      expect((await call(f, 'POST', `/webhooks/${w.webhook_id}/test`, p.token)).status).toBe(202);
      await waitFor('the ping', async () => r.accepted.length === 1);
      // counted once the worker has the receiver's answer, just after the receiver saw the request
      const text = await waitFor('the attempt counted', async () => {
        const t = await (await fetch(`${f.url}/metrics`)).text();
        return /^webhook_delivery_seconds_count\{[^}]*\} [1-9]/m.test(t) ? t : null;
      });
      expect(text).toMatch(/^webhook_delivery_attempts_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/m);
      expect(text).toMatch(/^webhook_deliveries\{[^}]*status="pending"[^}]*\} \d+/m);
      expect(text).toMatch(/^webhook_deliveries\{[^}]*status="failed"[^}]*\} \d+/m);
      expect(text).toMatch(/^webhook_oldest_pending_seconds\{[^}]*\} \d/m);
      expect(text).toMatch(/^webhook_delivery_seconds_count\{[^}]*\} [1-9]/m);
    });
  });

  describe('the feed', () => {
    it('pages with a stable cursor, filters by type, and refuses bad queries with 422', async () => {
      const p = await knownParticipant(f, 'producer');
      const empty = await call<EventFeedPage>(f, 'GET', '/events', p.token);
      expect(empty.body).toEqual({ events: [], next_cursor: expect.any(String) });
      const ds = [await register(f, p), await register(f, p), await register(f, p)];
      const first = await call<EventFeedPage>(f, 'GET', '/events?limit=2', p.token);
      expect(first.body.events.map((e) => e.subject)).toEqual([ds[0].diamond_id, ds[1].diamond_id]);
      const second = await call<EventFeedPage>(f, 'GET', `/events?limit=2&after=${first.body.next_cursor}`, p.token);
      expect(second.body.events.map((e) => e.subject)).toEqual([ds[2].diamond_id]);
      const again = await call<EventFeedPage>(f, 'GET', `/events?after=${second.body.next_cursor}`, p.token);
      expect(again.body).toEqual({ events: [], next_cursor: second.body.next_cursor });
      // the same page again from the same cursor (stable)
      expect((await call<EventFeedPage>(f, 'GET', `/events?limit=2&after=${first.body.next_cursor}`, p.token)).body).toEqual(second.body);
      expect((await call<EventFeedPage>(f, 'GET', '/events?types=dtp.diamond.deleted', p.token)).body.events).toEqual([]);
      for (const q of ['limit=0', 'limit=501', 'limit=x', 'after=nope', 'types=dtp.nope']) {
        const res = await call<{ detail: { loc: string[] }[] }>(f, 'GET', `/events?${q}`, p.token);
        expect([q, res.status]).toEqual([q, 422]);
        expect(res.body.detail[0].loc).toContain(q.split('=')[0]);
      }
    });

    it('stores each event of one statement with its own data, byte for byte, whatever the text holds', async () => {
      const p = await knownParticipant(f, 'producer');
      // Quotes, backslashes, escapes, non-ASCII and lone-surrogate escapes, nested arrays, JSON's own punctuation
      // inside strings: what an encoding of the texts must carry unchanged, each event's data told apart by position.
      const datas: unknown[] = [
        { diamond_id: 'a"b\\c', note: 'line\nbreak\ttab "quoted" \\ back' },
        { nested: [[1, 2.5, -0.0001], { e: 1e21, s: 'é ₹ 😀 \u0000 \ud800' }], empty: {}, none: null },
        { s: 'just a string with "quotes", [brackets], {braces} and commas,' },
        { list: [] },
        { action: 'registered', diamond_id: 'X', rough: { carats: '1.250', colour: 'D' } },
      ];
      const subjects = datas.map((_, i) => `order-subject-${i}`);
      const events = datas.map((d, i) => participantEvent(p.participant_id, 'dtp.diamond.updated', subjects[i], d, new Date()));
      const c = participantEventsCtes(events, 1);
      await f.db.query(`WITH ${c.sql} SELECT 1`, c.values);
      const { rows } = await f.db.query<{ subject: string; data: string; event_id: string }>(
        `SELECT subject, data::text AS data, event_id FROM participant_events WHERE participant_id = $1 ORDER BY seq`,
        [p.participant_id],
      );
      expect(rows.map((r) => [r.subject, r.event_id, r.data])).toEqual(events.map((e) => [e.subject, e.event_id, e.data]));
      // and the feed answers each with its own data
      const feed = await call<EventFeedPage>(f, 'GET', '/events', p.token);
      expect(feed.body.events.map((e) => [e.subject, e.data])).toEqual(datas.map((d, i) => [subjects[i], JSON.parse(JSON.stringify(d))]));
    });
  });
});
