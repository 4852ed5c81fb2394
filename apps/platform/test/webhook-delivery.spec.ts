import { spawn } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { Client } from 'pg';
import type { EventFeedPage, Webhook, WebhookDeliveryList, WebhookWithSecret } from '@dtp/domain';
import { InProcessTransport } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { createTestDatabase, HeldPort, ParticipantWithToken } from '@dtp/testing';
import { platformService } from '../src/app';
import { PlatformConfig } from '../src/config';
import { participantEvent, participantEventsCtes } from '../src/webhooks/participant-events';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { BATCH, CAUTIOUS_BATCH, CLAIMS_PER_LEASE, DeliveryWorker, PER_LEASE } from '../src/webhooks/delivery-worker';
import { call, PlatformFixture, platformReplicaEnv, register, startPlatform, uuidV7Millis, waitFor } from './helpers';
import { knownParticipant } from './shipments-helpers';
import { Receiver, startReceiver } from './webhook-receiver';

const FAST = { WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_SCHEDULE_MS: '50,100,200', WEBHOOK_TIMEOUT_MS: '800', WEBHOOK_RETRY_WINDOW_MS: '4000' };
/** The receiver timeout of the tests below that must not depend on the machine's load. */
const PATIENT_TIMEOUT_MS = 10_000;
const root = path.resolve(__dirname, '../../..');

/** The env of a platform replica on database `url` (in this process or a child), with this file's fast retries. */
const replicaEnv = (url: string, extra: Record<string, string> = {}) => platformReplicaEnv(url, { ...FAST, ...extra });

/** Subscribes `who` to `url` on platform `f`. */
async function subscribeOn(f: PlatformFixture, who: ParticipantWithToken, url: string): Promise<WebhookWithSecret> {
  const res = await call<WebhookWithSecret>(f, 'POST', '/webhooks', who.token, { url });
  expect(res.status).toBe(201);
  return res.body;
}

describe('webhook delivery', () => {
  let f: PlatformFixture;
  const receivers: Receiver[] = [];
  const replicas: RunningService[] = [];
  const heldPorts: HeldPort[] = [];
  const receiver = async (answer?: Receiver['answer'], at?: HeldPort) => {
    const r = await startReceiver(answer, at);
    receivers.push(r);
    return r;
  };
  const subscribe = (who: ParticipantWithToken, url: string) => subscribeOn(f, who, url);
  /** The participant's events on the feed, in recorded order. */
  const feed = async (who: ParticipantWithToken) => (await call<EventFeedPage>(f, 'GET', '/events?limit=500', who.token)).body.events;
  /** Three events on two subjects: two registrations, then an unlock of the first. */
  const threeEvents = async (who: ParticipantWithToken) => {
    const a = await register(f, who);
    const b = await register(f, who);
    expect((await call(f, 'POST', `/diamonds/${a.diamond_id}/unlock`, who.token)).status).toBe(200);
    return [a, b];
  };
  /**
   * The webhook's delivery log once no delivery is pending. A receiver's answer reaches the test before the worker has
   * stored it (outcomes are stored per batch), so what the log says is waited for, not read at once.
   */
  const settledLog = async (who: ParticipantWithToken, webhookId: string, count: number) =>
    waitFor(`${count} settled deliveries in the log`, async () => {
      const log = (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${webhookId}/deliveries`, who.token)).body.results;
      return log.length === count && log.every((d) => d.status !== 'pending') ? log : null;
    });
  /** Every event of the feed reached the receiver, and per subject in the feed's order (each once when accepted). */
  const expectAllInOrder = async (who: ParticipantWithToken, r: Receiver) => {
    const events = await feed(who);
    await waitFor('every event accepted', async () => events.every((e) => r.accepted.some((x) => x.event.id === e.id)), 15_000);
    for (const subject of new Set(events.map((e) => e.subject))) {
      const want = events.filter((e) => e.subject === subject).map((e) => e.id);
      const got = r.accepted.filter((x) => x.event.subject === subject).map((x) => x.event.id);
      expect(got).toEqual(want);
    }
    // within one subject, no later event was even attempted before the earlier one was accepted
    for (const subject of new Set(events.map((e) => e.subject))) {
      const ids = events.filter((e) => e.subject === subject).map((e) => e.id);
      for (let i = 1; i < ids.length; i++) {
        const firstTryOfLater = r.received.findIndex((x) => x.event.id === ids[i]);
        const acceptedEarlier = r.received.findIndex((x) => x.event.id === ids[i - 1] && r.accepted.includes(x));
        expect(firstTryOfLater).toBeGreaterThan(acceptedEarlier);
      }
    }
    return events;
  };

  beforeAll(async () => {
    f = await startPlatform(FAST);
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    for (const r of receivers) await r.close();
    for (const h of heldPorts) await h.release();
    await f?.close();
  });

  it('retries a receiver that answers 500 at first: every event arrives, in order per subject; the log shows the attempts', async () => {
    const p = await knownParticipant(f, 'producer');
    const r = await receiver((_rec, n) => (n <= 3 ? { status: 500, body: 'x'.repeat(5000) } : 204));
    const w = await subscribe(p, r.url);
    await threeEvents(p);
    await expectAllInOrder(p, r);
    const log = await settledLog(p, w.webhook_id, 3);
    expect(log.every((d) => d.status === 'delivered' && d.delivered_at !== null && d.next_attempt_at === null)).toBe(true);
    const retried = log.filter((d) => d.attempts > 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(log.every((d) => d.last_status_code === 204 && d.last_error === null)).toBe(true);
    expect(r.received.length).toBe(6);
    expect(r.maxInFlight).toBe(1);
  });

  it('gives events and deliveries ids ordered by time (UUIDv7): the feed events minted by the service, the deliveries by PostgreSQL', async () => {
    const since = Date.now();
    const p = await knownParticipant(f, 'producer');
    const r = await receiver();
    const w = await subscribe(p, r.url);
    await threeEvents(p);
    const events = await expectAllInOrder(p, r);
    const log = await settledLog(p, w.webhook_id, 3);
    const until = Date.now();
    // feed events in recorded order: their ids rise with it (the service's generator is monotonic)
    expect(events.map((e) => uuidV7Millis(e.id)).every((t) => t >= since && t <= until)).toBe(true);
    expect([...events.map((e) => e.id)].sort()).toEqual(events.map((e) => e.id));
    for (const d of log) expect(uuidV7Millis(d.delivery_id)).toBeGreaterThanOrEqual(since);
    for (const d of log) expect(uuidV7Millis(d.delivery_id)).toBeLessThanOrEqual(until);
    // PostgreSQL's generator (migration 1765418400000), many at once: distinct, each in the statement's time span
    const { rows } = await f.db.query<{ id: string; before: string; after: string }>(
      `SELECT dtp_uuid_v7()::text AS id, floor(extract(epoch FROM statement_timestamp()) * 1000)::text AS before,
              floor(extract(epoch FROM clock_timestamp()) * 1000)::text AS after FROM generate_series(1, 1000)`,
    );
    expect(new Set(rows.map((x) => x.id)).size).toBe(1000);
    for (const x of rows) {
      const t = uuidV7Millis(x.id);
      expect(t).toBeGreaterThanOrEqual(Number(x.before));
      expect(t).toBeLessThanOrEqual(Number(rows[rows.length - 1].after));
    }
  });

  it('retries a receiver that times out; never more than one request in flight to it', async () => {
    const p = await knownParticipant(f, 'producer');
    const r = await receiver((_rec, n) => (n === 1 ? 'hang' : 204));
    const w = await subscribe(p, r.url);
    await threeEvents(p);
    await expectAllInOrder(p, r);
    expect(r.maxInFlight).toBe(1);
    const log = await settledLog(p, w.webhook_id, 3);
    expect(log.map((d) => d.attempts).sort()).toEqual([1, 1, 2]);
    expect(log.every((d) => d.status === 'delivered')).toBe(true);
  });

  it('keeps retrying a receiver that is down, and delivers everything in order once it is up', async () => {
    const p = await knownParticipant(f, 'producer');
    // Nothing listens at the webhook's URL until the receiver starts, and no other process can take its port meanwhile.
    const held = await HeldPort.hold();
    heldPorts.push(held);
    const w = await subscribe(p, `http://${held.host}:${held.port}/hook`);
    await threeEvents(p);
    await waitFor('failed attempts', async () => {
      const { rows } = await f.db.query(`SELECT max(attempts) AS n FROM webhook_deliveries WHERE webhook_id = $1`, [w.webhook_id]);
      return Number(rows[0].n) >= 3;
    });
    const { rows } = await f.db.query(`SELECT status, last_error FROM webhook_deliveries WHERE webhook_id = $1 AND attempts > 0`, [w.webhook_id]);
    expect(rows.every((x) => x.status === 'pending' && /connection failed: connection refused \(ECONNREFUSED\)/.test(x.last_error))).toBe(true);
    const r = await receiver(undefined, held);
    expect(r.url).toBe(w.url);
    await expectAllInOrder(p, r);
  });

  it('fails a delivery after the retry window; a retry by hand delivers it', async () => {
    const p = await knownParticipant(f, 'producer');
    let up = false;
    const r = await receiver(() => (up ? 204 : { status: 503, body: 'y'.repeat(5000) }));
    const w = await subscribe(p, r.url);
    await register(f, p);
    const failed = await waitFor(
      'the delivery to fail',
      async () => {
        const log = (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${w.webhook_id}/deliveries`, p.token)).body.results;
        return log[0]?.status === 'failed' ? log[0] : null;
      },
      15_000,
    );
    expect(failed).toMatchObject({ status: 'failed', last_status_code: 503, next_attempt_at: null });
    expect(failed.attempts).toBeGreaterThan(3);
    // the receiver's answer is kept in the log up to 1 KiB
    expect(failed.last_error).toBe(`HTTP 503: ${'y'.repeat(1024)}`);
    up = true;
    const retried = await call<{ status: string }>(f, 'POST', `/webhooks/${w.webhook_id}/deliveries/${failed.delivery_id}/retry`, p.token);
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe('pending');
    await waitFor('the retried delivery', async () => r.accepted.length === 1);
    expect(r.accepted[0].event.id).toBe(failed.event_id);
    expect((await call(f, 'POST', `/webhooks/${w.webhook_id}/deliveries/3b241101-e2bb-4255-8caf-4136c566a962/retry`, p.token)).status).toBe(404);
  });

  it('disables a webhook whose receiver answers 410 Gone, and delivers nothing more to it', async () => {
    const p = await knownParticipant(f, 'producer');
    const r = await receiver(() => 410);
    const w = await subscribe(p, r.url);
    await register(f, p);
    const disabled = await waitFor('the webhook disabled', async () => {
      const got = (await call<Webhook>(f, 'GET', `/webhooks/${w.webhook_id}`, p.token)).body;
      return got.enabled ? null : got;
    });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    await register(f, p);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received).toHaveLength(1);
    // enabled again by hand
    expect((await call<Webhook>(f, 'PATCH', `/webhooks/${w.webhook_id}`, p.token, { enabled: true })).body).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });
  });

  it('two replicas share the deliveries: every event delivered, none twice', async () => {
    const config = loadConfig('platform', PlatformConfig, replicaEnv(f.stack.databases.platform!));
    replicas.push(await platformService.start(config, { transport: f.stack.transport }, pino({ level: 'silent' })));
    const ps = [];
    const rs: Receiver[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await knownParticipant(f, 'producer');
      const r = await receiver(() => ({ status: 200 }));
      await subscribe(p, r.url);
      ps.push(p);
      rs.push(r);
    }
    await Promise.all(ps.map(async (p) => Promise.all(Array.from({ length: 10 }, () => register(f, p)))));
    for (let i = 0; i < 4; i++) {
      await waitFor('10 events', async () => rs[i].received.length >= 10);
    }
    await new Promise((res) => setTimeout(res, 300));
    for (const r of rs) {
      expect(r.received).toHaveLength(10);
      expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(10);
      expect(r.maxInFlight).toBe(1);
    }
  });
});

/**
 * Tests that must not depend on how loaded the machine is: the receiver's timeout is long, so that a slow answer
 * never times out and "less than one timeout" leaves seconds to spare.
 */
describe('webhook delivery with a patient timeout', () => {
  let f: PlatformFixture;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: Receiver['answer']) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  const subscribe = (who: ParticipantWithToken, url: string) => subscribeOn(f, who, url);

  beforeAll(async () => {
    f = await startPlatform({ ...FAST, WEBHOOK_TIMEOUT_MS: String(PATIENT_TIMEOUT_MS) });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await f?.close();
  });

  it("stores a slow receiver's outcomes while its batch goes on, not only at the batch's end", async () => {
    const p = await knownParticipant(f, 'producer');
    let seen = false;
    let release!: () => void;
    const seenInTime = new Promise<void>((resolve) => (release = resolve));
    // the first two answers take 600 ms each (more than a second in all); the third waits until the log showed the
    // first two delivered, or 8 s (2 s under the timeout: its answer must not be a timeout), so the batch is still going on while the test looks
    const r = await receiver(async (_rec, n) => {
      if (n <= 2) await new Promise((resolve) => setTimeout(resolve, 600));
      else if (n === 3) await Promise.race([seenInTime, new Promise((resolve) => setTimeout(resolve, PATIENT_TIMEOUT_MS - 2000))]);
      return 204;
    });
    const w = await subscribe(p, r.url);
    // three events of three subjects in one statement: one claim takes them as one batch
    const events = ['slow-a', 'slow-b', 'slow-c'].map((s) => participantEvent(p.participant_id, 'dtp.diamond.deleted', s, { diamond_id: s }, new Date()));
    const c = participantEventsCtes(events, 1);
    await f.db.query(`WITH ${c.sql} SELECT 1`, c.values);
    await waitFor(
      'the third request',
      async () => {
        if (!seen && r.received.length === 3 && r.accepted.length === 2) {
          const log = (await call<WebhookDeliveryList>(f, 'GET', `/webhooks/${w.webhook_id}/deliveries`, p.token)).body.results;
          if (log.filter((d) => d.status === 'delivered').length === 2 && r.accepted.length === 2) {
            seen = true;
            release();
          }
        }
        return r.accepted.length === 3;
      },
      20_000,
    );
    expect(seen).toBe(true);
    expect(r.accepted.map((x) => x.event.subject)).toEqual(['slow-a', 'slow-b', 'slow-c']);
  });

  it('is fair: a webhook with a dead receiver and a backlog does not hold up another participant', async () => {
    const slow = await knownParticipant(f, 'producer');
    const quick = await knownParticipant(f, 'producer');
    const dead = await receiver(() => 'hang');
    const ok = await receiver();
    await subscribe(slow, dead.url);
    await subscribe(quick, ok.url);
    for (let i = 0; i < 10; i++) await register(f, slow);
    const started = Date.now();
    await register(f, quick);
    await waitFor('the other participant served', async () => ok.accepted.length === 1);
    expect(Date.now() - started).toBeLessThan(PATIENT_TIMEOUT_MS); // less than one timeout of the dead receiver
    expect(dead.maxInFlight).toBe(1);
  });
});

/**
 * A platform database of its own, migrated (no platform running on it yet), a connection to it, and a receiver that
 * answers `answer`; `webhook` inserts p1's webhook to that receiver, as a subscription would have.
 */
async function deliveryDatabase(name: string, answer: Receiver['answer']) {
  const url = await createTestDatabase(name);
  const logger = pino({ level: 'silent' });
  const env = replicaEnv(url);
  await platformService.migrate(loadConfig('platform', PlatformConfig, env), logger);
  const r = await startReceiver(answer);
  const db = new Client({ connectionString: url });
  await db.connect();
  const webhook = (webhookId: string) =>
    db.query(`INSERT INTO webhooks (webhook_id, participant_id, url, secret, created_at) VALUES ($1, 'p1', $2, $3, now())`, [
      webhookId,
      r.url,
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8SMT4H7lvQA=',
    ]);
  return { env, logger, r, db, webhook };
}

describe('a platform killed mid-delivery', () => {
  it('loses nothing: the delivery stays in the database and another replica delivers it after the lease', async () => {
    let hanging = true;
    const { env, logger, r, db, webhook } = await deliveryDatabase('platform_kill', () => (hanging ? 'hang' : 204));
    let survivor: RunningService | undefined;
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'apps/platform/src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...env, LOG_LEVEL: 'warn', EVENT_TRANSPORT: 'in-process' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await webhook('3b241101-e2bb-4255-8caf-4136c566a962');
      const c = participantEventsCtes([participantEvent('p1', 'dtp.diamond.deleted', 'd1', { diamond_id: 'd1' }, new Date())], 1);
      await db.query(`WITH ${c.sql} SELECT 1`, c.values);
      // the child claims it and waits on the hanging receiver
      await waitFor('the child mid-delivery', async () => r.received.length === 1, 40_000).catch((err: Error) => {
        throw new Error(`${err.message}; the child said: ${output.slice(-2000)}`);
      });
      child.kill('SIGKILL');
      await new Promise((res) => child.once('exit', res));
      const { rows } = await db.query(`SELECT status, attempts FROM webhook_deliveries`);
      expect(rows).toEqual([{ status: 'pending', attempts: 1 }]);
      hanging = false;
      survivor = await platformService.start(loadConfig('platform', PlatformConfig, env), { transport: new InProcessTransport() }, logger);
      await waitFor('the survivor delivers it', async () => r.accepted.length === 1, 20_000);
      // the receiver has answered; the survivor stores that outcome just after
      const after = await waitFor('the delivery stored', async () => {
        const { rows } = await db.query(`SELECT status, attempts FROM webhook_deliveries`);
        return rows[0]?.status === 'pending' ? null : rows;
      });
      expect(after).toEqual([{ status: 'delivered', attempts: 2 }]);
      expect(r.accepted[0].headers['webhook-id']).toBe(r.received[0].headers['webhook-id']);
    } finally {
      child.kill('SIGKILL');
      await survivor?.close();
      await db.end();
      await r.close();
    }
  }, 90_000);
});

describe("the worker moving a webhook's walk start", () => {
  it('moves it up as it delivers, every 500 deliveries, never past a pending one, delivering everything in order', async () => {
    const { env, logger, r, db, webhook } = await deliveryDatabase('platform_walk_start', () => 204);
    let replica: RunningService | undefined;
    try {
      const webhookId = '6d0f4a2b-8c1e-4f3a-9b5d-2e7c0a1f3b4d';
      await webhook(webhookId);
      // 2,000 events of as many subjects, written before the worker starts: full batches and leases from the first
      for (let b = 0; b < 5; b++) {
        const events = Array.from({ length: 400 }, (_, i) => participantEvent('p1', 'dtp.diamond.deleted', `d${b * 400 + i}`, { n: b * 400 + i }, new Date()));
        const c = participantEventsCtes(events, 1);
        await db.query(`WITH ${c.sql} SELECT 1`, c.values);
      }
      const start = async () => (await db.query(`SELECT pending_from::int AS n FROM webhooks WHERE webhook_id = $1`, [webhookId])).rows[0].n as number;
      expect(await start()).toBe(0);

      replica = await platformService.start(loadConfig('platform', PlatformConfig, env), { transport: new InProcessTransport() }, logger);
      await waitFor('2,000 deliveries accepted', async () => r.accepted.length >= 2000, 60_000);
      expect(r.accepted.map((x) => x.event.subject)).toEqual(Array.from({ length: 2000 }, (_, i) => `d${i}`));

      // planned at 500, checked at 1,000, moved at 1,500 (and so on): up, but never past the events still to come
      const { rows } = await db.query(`SELECT min(seq)::int AS first, max(seq)::int AS last FROM participant_events`);
      const moved = await start();
      expect(moved).toBeGreaterThan(rows[0].first);
      expect(moved).toBeLessThanOrEqual(rows[0].last + 1);
      // one more event after all that is still delivered
      const c = participantEventsCtes([participantEvent('p1', 'dtp.diamond.deleted', 'after', { n: 2000 }, new Date())], 1);
      await db.query(`WITH ${c.sql} SELECT 1`, c.values);
      await waitFor('the event after', async () => r.accepted.some((x) => x.event.subject === 'after'), 20_000);
    } finally {
      await replica?.close();
      await db.end();
      await r.close();
    }
  }, 120_000);
});

/**
 * What the delivery worker does with one webhook, in order: each claim (the size asked, the deliveries found) and each
 * release (the end of a lease). `restore` puts the repository's methods back.
 */
function watchWorker(webhookId: string) {
  const steps: ({ size: number; got: number } | 'released')[] = [];
  const claim = WebhooksRepository.prototype.claimBatch;
  const release = WebhooksRepository.prototype.release;
  const claims = jest.spyOn(WebhooksRepository.prototype, 'claimBatch').mockImplementation(async function (this: WebhooksRepository, ...args) {
    const got = await claim.apply(this, args);
    if (args[1] === webhookId) steps.push({ size: args[3], got: got.length });
    return got;
  });
  const releases = jest.spyOn(WebhooksRepository.prototype, 'release').mockImplementation(async function (this: WebhooksRepository, ...args) {
    await release.apply(this, args);
    if (args[1] === webhookId) steps.push('released');
  });
  return {
    steps,
    claims: () => steps.filter((s): s is { size: number; got: number } => s !== 'released'),
    restore: () => {
      claims.mockRestore();
      releases.mockRestore();
    },
  };
}

describe("the delivery worker's claims", () => {
  let f: PlatformFixture;
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  beforeAll(async () => {
    // A timeout longer than the test: the first delivery is held by the receiver while a backlog builds up.
    f = await startPlatform({ ...FAST, WEBHOOK_TIMEOUT_MS: '60000' });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('claims CAUTIOUS_BATCH deliveries of a webhook it has not delivered to yet or whose last attempt failed, BATCH after a delivery', async () => {
    const p = await knownParticipant(f, 'producer');
    // the 1st and 3rd requests fail (the first registration's first try, the second's), every other one is accepted
    const rcv = (r = await startReceiver((_, n) => (n === 1 || n === 3 ? 500 : 204)));
    const hook = await subscribeOn(f, p, rcv.url);
    const worker = watchWorker(hook.webhook_id);
    try {
      for (let i = 1; i <= 3; i++) {
        const d = await register(f, p);
        await waitFor(`registration ${i} accepted`, async () => rcv.accepted.some((x) => x.event.subject === d.diamond_id), 15_000);
      }
      // the claims that found a delivery: the first (a webhook not served yet) and the retry after a 500 cautious, the
      // next after an accepted one large, cautious again after the second 500, large after the accepted retry
      expect(
        worker
          .claims()
          .filter((c) => c.got > 0)
          .map((c) => c.size),
      ).toEqual([CAUTIOUS_BATCH, CAUTIOUS_BATCH, BATCH, CAUTIOUS_BATCH, BATCH]);
      expect(rcv.received).toHaveLength(5);
    } finally {
      worker.restore();
    }
  });

  it('claims at most PER_LEASE deliveries in at most CLAIMS_PER_LEASE claims per lease, BATCH at a time once delivering', async () => {
    const p = await knownParticipant(f, 'producer');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const rcv = (r = await startReceiver(async (_, n) => (n === 1 ? gate.then(() => 204) : 204)));
    const hook = await subscribeOn(f, p, rcv.url);
    const worker = watchWorker(hook.webhook_id);
    try {
      const first = await register(f, p);
      await waitFor('the first delivery held by the receiver', async () => rcv.received.length === 1);
      // a backlog of 130 while the first is held: the worker cannot claim them before the gate opens
      const rest: string[] = [];
      for (let i = 0; i < 130; i++) rest.push((await register(f, p)).diamond_id);
      open();
      await waitFor('every registration accepted', async () => rcv.accepted.length === 131, 30_000);
      expect(rcv.accepted[0].event.subject).toBe(first.diamond_id);
      expect(new Set(rcv.accepted.map((x) => x.event.subject))).toEqual(new Set([first.diamond_id, ...rest]));

      const leases: { size: number; got: number }[][] = [[]];
      for (const step of worker.steps) {
        if (step === 'released') leases.push([]);
        else leases[leases.length - 1].push(step);
      }
      for (const lease of leases) {
        expect(lease.length).toBeLessThanOrEqual(CLAIMS_PER_LEASE);
        expect(lease.reduce((n, c) => n + c.got, 0)).toBeLessThanOrEqual(PER_LEASE);
      }
      const found = worker.claims().filter((c) => c.got > 0);
      // the first claim of a webhook not yet sent to is cautious; once delivering, full batches of BATCH were claimed
      expect(found[0]).toEqual({ size: CAUTIOUS_BATCH, got: 1 });
      expect(found.some((c) => c.size === BATCH && c.got === BATCH)).toBe(true);
      expect(found.reduce((n, c) => n + c.got, 0)).toBe(131);
    } finally {
      worker.restore();
    }
  });
});

describe('the delivery worker while no webhook is enabled', () => {
  let f: PlatformFixture;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    // A poll far longer than the test: whatever the worker does here, a commit or a webhook change made it do.
    f = await startPlatform({ ...FAST, WEBHOOK_POLL_MS: '60000' });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await f?.close();
  });

  it('leases nothing on commits, looks again when a webhook is created or disabled here, and delivers at once', async () => {
    const leases = jest.spyOn(WebhooksRepository.prototype, 'leaseWebhooks');
    const looks = jest.spyOn(WebhooksRepository.prototype, 'anyEnabled');
    try {
      const p = await knownParticipant(f, 'producer');
      // every commit pokes the worker: none of them leases while no webhook is enabled (one look at most, at start)
      for (let i = 0; i < 8; i++) await register(f, p);
      expect(leases).not.toHaveBeenCalled();
      expect(looks.mock.calls.length).toBeLessThanOrEqual(1);

      // a webhook created on this replica is served at once, not after the poll
      const r = await startReceiver();
      receivers.push(r);
      const hook = await subscribeOn(f, p, r.url);
      const d = await register(f, p);
      await waitFor('the registration delivered', async () => r.accepted.some((x) => x.event.subject === d.diamond_id), 10_000);
      expect(leases).toHaveBeenCalled();

      // disabled: the worker looks again, and leases stop
      const looked = looks.mock.calls.length;
      expect((await call(f, 'PATCH', `/webhooks/${hook.webhook_id}`, p.token, { enabled: false })).status).toBe(200);
      await register(f, p);
      await waitFor('a look after the change', async () => looks.mock.calls.length > looked);
      const leased = leases.mock.calls.length;
      for (let i = 0; i < 5; i++) await register(f, p);
      expect(leases.mock.calls.length).toBe(leased);
    } finally {
      leases.mockRestore();
      looks.mockRestore();
    }
  });

  it('does not keep a look that a webhook created meanwhile overtook', async () => {
    const worker = f.stack.services.platform!.app.get(DeliveryWorker);
    const p = await knownParticipant(f, 'producer');
    const r = await startReceiver();
    receivers.push(r);
    const look = WebhooksRepository.prototype.anyEnabled;
    const looks = jest.spyOn(WebhooksRepository.prototype, 'anyEnabled');
    let overtaken = false;
    // the next look reads the table (no webhook enabled), and a webhook is created before its answer is back
    looks.mockImplementationOnce(async function (this: WebhooksRepository, sql) {
      const seen = await look.call(this, sql);
      await subscribeOn(f, p, r.url);
      overtaken = true;
      return seen;
    });
    try {
      worker.webhooksChanged();
      await waitFor('the look overtaken', async () => overtaken);
      const d = await register(f, p);
      await waitFor('the registration delivered', async () => r.accepted.some((x) => x.event.subject === d.diamond_id), 10_000);
    } finally {
      looks.mockRestore();
    }
  });
});
