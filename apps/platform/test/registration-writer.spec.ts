import { Histogram } from 'prom-client';
import type { Caller } from '@dtp/auth-guard';
import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode, UnitOfWork } from '@dtp/database';
import { CreateRoughDiamondDto, DiamondV1, entryHash, recordSha256 } from '@dtp/domain';
import { ServiceMetrics } from '@dtp/service-kit';
import type { ParticipantWithToken } from '@dtp/testing';
import { newDiamondWrite } from '../src/diamonds/diamond-changes';
import { DiamondsRepository, NewDiamondWrite } from '../src/diamonds/diamonds.repository';
import { newRoughRow } from '../src/registration/registration.service';
import { MAX_ROWS_PER_STATEMENT, MAX_STATEMENTS_IN_FLIGHT, RegistrationWriter } from '../src/registration/registration-writer';
import { call, outboxRows, participant, participantKnown, PlatformFixture, roughBody, startPlatform } from './helpers';

const CREATE = '/diamonds/rough/create';

/**
 * RegistrationWriter: registrations arriving together share one statement (group commit), and each still gets its
 * own outcome. Against the real platform and its PostgreSQL; the writer is taken from the running app.
 */
describe('registrations written together (RegistrationWriter)', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let caller: Caller;
  let writer: RegistrationWriter;
  let uow: UnitOfWork;

  beforeAll(async () => {
    f = await startPlatform();
    producer = await participant(f, 'producer', { name: 'Writer Mining', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } });
    await participantKnown(f, producer.participant_id);
    caller = { participantId: producer.participant_id, role: 'producer', clientId: 'writer-test', name: 'Writer Mining' } as Caller;
    writer = f.stack.services.platform!.app.get(RegistrationWriter);
    uow = f.stack.services.platform!.app.get(UnitOfWork);
  });
  afterAll(async () => {
    await f?.close();
  });

  /** What the hot path hands the writer for one registration in `box`. */
  function newWrite(box: string, participantId = `p-${Math.random().toString(36).slice(2)}`): { write: NewDiamondWrite; record: DiamondV1 } {
    const now = new Date();
    const dto = {
      box_id: box,
      participant_id: participantId,
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: 1.25 },
    } as unknown as CreateRoughDiamondDto;
    const provenance = {
      provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
      pending: false,
    };
    const row = newRoughRow(caller, dto, { kind: 'own', scope: producer.participant_id } as never, provenance as never, producer.participant_id, now);
    const { change, write } = newDiamondWrite(row, producer.participant_id, null, now);
    return { write, record: change.record };
  }

  /** Count and sum of the rows-per-statement histogram. */
  async function statements(): Promise<{ count: number; sum: number }> {
    const h = f.stack.services.platform!.app.get(ServiceMetrics).registry.getSingleMetric('platform_registrations_per_statement') as Histogram;
    const values = (await h.get()).values;
    return {
      count: values.find((v) => v.metricName === 'platform_registrations_per_statement_count')?.value ?? 0,
      sum: values.find((v) => v.metricName === 'platform_registrations_per_statement_sum')?.value ?? 0,
    };
  }

  async function stored(
    diamondId: string,
  ): Promise<{ diamonds: number; entries: { entry_hash: string; record_sha256: string; action: string }[]; events: number; head: string | null }> {
    const d = await f.db.query<{ custody_head: string | null }>(`SELECT custody_head FROM diamonds WHERE diamond_id = $1`, [diamondId]);
    const e = await f.db.query(`SELECT entry_hash, record_sha256, action FROM custody_entries WHERE diamond_id = $1`, [diamondId]);
    return { diamonds: d.rows.length, entries: e.rows, events: (await outboxRows(f, diamondId)).length, head: d.rows[0]?.custody_head ?? null };
  }

  it('writes registrations made in the same turn of the event loop in shared statements, each with its entry and event', async () => {
    const n = MAX_ROWS_PER_STATEMENT + 4;
    const writes = Array.from({ length: n }, () => newWrite('BOX-BATCH'));
    const before = await statements();
    await Promise.all(writes.map((w) => writer.write(w.write)));
    const after = await statements();
    // One statement of MAX_ROWS_PER_STATEMENT and one of the 4 left.
    expect(after.count - before.count).toBe(2);
    expect(after.sum - before.sum).toBe(n);
    for (const { write, record } of writes) {
      const s = await stored(record.diamond_id);
      expect(s.diamonds).toBe(1);
      expect(s.events).toBe(1);
      expect(s.entries).toEqual([{ entry_hash: write.entry.entry_hash, record_sha256: recordSha256(record), action: 'registered' }]);
      expect(s.head).toBe(entryHash(write.entry.entry));
    }
  });

  it('holds registrations that arrive while a statement runs for the next one, which they share', async () => {
    class Held extends DiamondsRepository {
      batches: number[] = [];
      release!: () => void;
      private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
      override async insertManyWithOutbox(_sql: unknown, writes: NewDiamondWrite[]): Promise<void> {
        this.batches.push(writes.length);
        if (this.batches.length === 1) await this.gate;
      }
    }
    const repo = new Held();
    const held = new RegistrationWriter(uow, repo);
    const first = held.write(newWrite('BOX-HELD').write);
    await new Promise((resolve) => setImmediate(resolve));
    expect(repo.batches).toEqual([1]);
    // Five more, each in a turn of its own, while the first statement runs.
    const later: Promise<void>[] = [];
    for (let i = 0; i < 5; i++) {
      later.push(held.write(newWrite('BOX-HELD').write));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // No second statement while the first runs (MAX_STATEMENTS_IN_FLIGHT is 1).
    expect(MAX_STATEMENTS_IN_FLIGHT).toBe(1);
    expect(repo.batches).toEqual([1]);
    repo.release();
    await Promise.all([first, ...later]);
    expect(repo.batches).toEqual([1, 5]);
  });

  it('gives each registration of a refused statement its own outcome: the duplicate fails, the others are written', async () => {
    const taken = newWrite('BOX-REFUSED');
    await writer.write(taken.write);
    const others = Array.from({ length: 5 }, () => newWrite('BOX-REFUSED'));
    const duplicate = newWrite('BOX-REFUSED', taken.write.row.participant_id!);
    const before = await statements();
    const outcomes = await Promise.allSettled([...others, duplicate].map((w) => writer.write(w.write)));
    expect(outcomes.slice(0, 5).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const refused = outcomes[5];
    expect(refused.status).toBe('rejected');
    const err = (refused as PromiseRejectedResult).reason;
    expect(pgErrorCode(err)).toBe(PG_UNIQUE_VIOLATION);
    expect(pgConstraint(err)).toBe('diamonds_box_participant_id');
    // The shared statement wrote nothing; the five were then written one by one.
    const after = await statements();
    expect(after.count - before.count).toBe(5);
    expect(after.sum - before.sum).toBe(5);
    for (const o of others) expect(await stored(o.record.diamond_id)).toMatchObject({ diamonds: 1, events: 1, entries: [{ action: 'registered' }] });
    expect(await stored(duplicate.record.diamond_id)).toMatchObject({ diamonds: 0, events: 0, entries: [] });
  });

  it('answers every request of a batch with a duplicate in it: 200 for the new ones, 409 diamond_not_unique for the duplicate', async () => {
    const bodies = Array.from({ length: 12 }, () => roughBody({ box_id: 'BOX-HTTP-BATCH' }));
    bodies.push({ ...bodies[0], rough: { carats: 2 } });
    const before = await statements();
    const results = await Promise.all(bodies.map((b) => call<DiamondV1>(f, 'POST', CREATE, producer.token, b)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.filter((s) => s === 409)).toHaveLength(1);
    const conflict = results.find((r) => r.status === 409)!;
    expect(conflict.body).toMatchObject({ reason: 'diamond_not_unique' });
    const ids = results.filter((r) => r.status === 200).map((r) => r.body.diamond_id);
    expect(new Set(ids).size).toBe(12);
    for (const id of ids) expect(await stored(id)).toMatchObject({ diamonds: 1, events: 1, entries: [{ action: 'registered' }] });
    // However the requests were grouped, every written registration is counted once.
    const after = await statements();
    expect(after.sum - before.sum).toBe(12);
  });

  it('fails every registration of a statement whose outcome is unknown (no SQLSTATE), without writing any alone', async () => {
    class LostConnection extends DiamondsRepository {
      alone = 0;
      override async insertManyWithOutbox(): Promise<void> {
        throw new Error('Connection terminated unexpectedly');
      }
      override async insertWithOutbox(): Promise<void> {
        this.alone += 1;
      }
    }
    const repo = new LostConnection();
    const broken = new RegistrationWriter(uow, repo);
    const outcomes = await Promise.allSettled([newWrite('BOX-LOST'), newWrite('BOX-LOST'), newWrite('BOX-LOST')].map((w) => broken.write(w.write)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(outcomes.map((o) => (o as PromiseRejectedResult).reason.message)).toEqual(Array(3).fill('Connection terminated unexpectedly'));
    expect(repo.alone).toBe(0);
  });

  it('joins the shared transaction of an Idempotency-Key request instead of committing alone', async () => {
    const w = newWrite('BOX-SHARED');
    await expect(
      uow.runShared(async () => {
        await writer.write(w.write);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await stored(w.record.diamond_id)).toMatchObject({ diamonds: 0, events: 0, entries: [] });
  });

  it("keeps each event's trace context as it was when the registration was made", async () => {
    const w = newWrite('BOX-TRACE');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await writer.write({ ...w.write, events: w.write.events.map((e) => ({ ...e, traceparent })) });
    const { rows } = await f.db.query<{ traceparent: string | null }>(`SELECT traceparent FROM outbox WHERE key = $1`, [w.record.diamond_id]);
    expect(rows).toEqual([{ traceparent }]);
  });

  it('finishes the registrations it holds before the application shuts down', async () => {
    const writes = Array.from({ length: 5 }, () => newWrite('BOX-SHUTDOWN'));
    const pending = writes.map((w) => writer.write(w.write));
    await writer.beforeApplicationShutdown();
    // Nothing is left to wait for: every registration is committed when the hook resolves.
    for (const w of writes) expect((await stored(w.record.diamond_id)).diamonds).toBe(1);
    await Promise.all(pending);
  });
});
