import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { createDataSource, UnitOfWork } from '@dtp/database';
import { RunningService } from '@dtp/service-kit';
import { gisEntities } from '../src/entities';
import { gisMigrations } from '../src/migrations';
import { ValidationRequestEntity } from '../src/validation/validation-request.entity';
import { ValidationRepository } from '../src/validation/validation.repository';
import { GisTestStack, Json, VALIDATE_OK, VERIFY_OK, answered, client, eligibleDiamond, lab, pathOf, startGis, startGisReplica, waitFor } from './gis-helpers';

/** A repository on its own connection pool: stands in for "another worker" in the tests. */
async function foreignRepository(url: string) {
  const ds = createDataSource({ url, service: 'gis-test', entities: gisEntities, migrations: gisMigrations, poolSize: 2 });
  await ds.initialize();
  return { repo: new ValidationRepository(ds.getRepository(ValidationRequestEntity), new UnitOfWork(ds)), close: () => ds.destroy() };
}

async function queue(t: GisTestStack, token: string, body: Json = VALIDATE_OK): Promise<{ id: string; requestId: string; path: string }> {
  const api = client(t.gis, token);
  const d = await eligibleDiamond(t);
  expect((await api.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).body.status).toBe('success');
  const res = await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, body);
  expect(res.status).toBe(202);
  return { id: d.diamond_id, requestId: res.body.request_id as string, path: pathOf(res.body.status_url as string) };
}

const jobRow = async (db: Pool, requestId: string) =>
  (await db.query(`SELECT status, attempts, claimed_by, answered_by, verification_error FROM validation_requests WHERE request_id = $1`, [requestId]))
    .rows[0] as Json;

describe('validation worker: a crash mid-request', () => {
  let t: GisTestStack;
  let restarted: RunningService | undefined;
  beforeAll(async () => {
    // This instance runs no worker: the test itself plays the worker that claims a job and dies.
    t = await startGis({ VALIDATION_WORKER_ENABLED: 'false', VALIDATION_LEASE_SECONDS: '5' });
  });
  afterAll(async () => {
    await restarted?.close();
    await t?.close();
  });

  it('a job claimed by a worker that died is reclaimed after its lease and answered after the restart', async () => {
    const l = await lab(t);
    const job = await queue(t, l.token);

    // Pending is not in the history (only answered or errored requests are).
    expect((await client(t.gis, l.token).get(`/v2/diamonds/${job.id}/validate/historic`)).body).toEqual([]);

    // A worker claims the job (the real claim query) and crashes before answering.
    const dead = await foreignRepository(t.stack.databases.gis!);
    const claimed = await dead.repo.claim('dead-worker', 5, 10);
    expect(claimed.map((j) => j.request_id)).toEqual([job.requestId]);
    await dead.close();
    expect(await jobRow(t.db, job.requestId)).toMatchObject({ status: 'Pending', attempts: 1, claimed_by: 'dead-worker' });

    // The service goes down and comes back with its worker on (same database, same transport).
    await t.stack.services.gis!.close();
    restarted = await startGisReplica(t, { VALIDATION_WORKER_ENABLED: 'true' });
    const api = client(restarted.url, l.token);

    // While the dead worker's lease runs, nobody else takes the job.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api.get(job.path)).body.verification_status).toBe('Pending');

    // The lease runs out (aged here instead of waiting): the restarted worker answers it.
    await t.db.query(`UPDATE validation_requests SET claimed_at = claimed_at - interval '10 seconds' WHERE request_id = $1`, [job.requestId]);
    const result = await answered(restarted.url, l.token, job.path);
    expect(result).toMatchObject({ request_id: job.requestId, verification_status: 'Verified', verification_error: null });
    const row = await jobRow(t.db, job.requestId);
    expect(row).toMatchObject({ status: 'Verified', attempts: 2, claimed_by: null });
    expect(row.answered_by).not.toBe('dead-worker');

    // A request made after the restart is answered promptly (NOTIFY), without any lease involved.
    const next = await queue({ ...t, gis: restarted.url }, l.token);
    const started = Date.now();
    await answered(restarted.url, l.token, next.path);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('validation worker: job table semantics', () => {
  let t: GisTestStack;
  beforeAll(async () => {
    t = await startGis({ VALIDATION_WORKER_ENABLED: 'false', VALIDATION_MAX_ATTEMPTS: '2' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('claims skip rows another worker has locked (FOR UPDATE SKIP LOCKED) and never hand out a held job twice', async () => {
    const l = await lab(t);
    const a = await queue(t, l.token);
    const b = await queue(t, l.token);
    const locker = new Client({ connectionString: t.stack.databases.gis });
    await locker.connect();
    const other = await foreignRepository(t.stack.databases.gis!);
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM validation_requests WHERE request_id = $1 FOR UPDATE`, [a.requestId]);
      const started = Date.now();
      const first = await other.repo.claim('w1', 60, 10);
      expect(Date.now() - started).toBeLessThan(1000); // did not wait for the lock
      expect(first.map((j) => j.request_id)).toEqual([b.requestId]);
      await locker.query('ROLLBACK');
      const second = await other.repo.claim('w2', 60, 10);
      expect(second.map((j) => j.request_id)).toEqual([a.requestId]);
      // Both are now held under unexpired leases: nothing left to claim.
      expect(await other.repo.claim('w3', 60, 10)).toEqual([]);
      // Only the holder may answer.
      expect(await other.repo.answer(a.requestId, 'w1', { status: 'Verified', description: null, error: null, parameters: null })).toBe(false);
      expect(await other.repo.answer(a.requestId, 'w2', { status: 'Verified', description: 'x', error: null, parameters: null })).toBe(true);
      expect(await other.repo.answer(a.requestId, 'w2', { status: 'Unverifiable', description: 'y', error: null, parameters: null })).toBe(false);
    } finally {
      await locker.end();
      await other.close();
    }
  });

  it('a job whose workers keep dying is answered with verification_error after VALIDATION_MAX_ATTEMPTS claims', async () => {
    // Queued and marked as claimed twice by dead workers while no worker runs, so no worker can answer it first.
    const l = await lab(t);
    const job = await queue(t, l.token);
    await t.db.query(`UPDATE validation_requests SET attempts = 2, claimed_by = 'gone', claimed_at = now() - interval '1 hour' WHERE request_id = $1`, [
      job.requestId,
    ]);
    const worker = await startGisReplica(t, { VALIDATION_WORKER_ENABLED: 'true' });
    try {
      const result = await answered(worker.url, l.token, job.path);
      expect(result).toMatchObject({ verification_status: 'Unverifiable', parameters: null });
      expect(result.verification_error).toMatch(/interrupted 2 times/);
    } finally {
      await worker.close();
    }
  });

  describe('with a worker running', () => {
    let replica: RunningService;
    beforeAll(async () => {
      replica = await startGisReplica(t, { VALIDATION_WORKER_ENABLED: 'true' });
    });
    afterAll(async () => {
      await replica?.close();
    });

    it('a job whose processing fails ends Unverifiable with verification_error, never stuck in Pending', async () => {
      const l = await lab(t);
      const d = await eligibleDiamond(t);
      const requestId = randomUUID();
      // A job pointing at a scan report GIS never parsed: processing throws.
      await t.db.query(
        `INSERT INTO validation_requests (request_id, diamond_id, lab_participant_id, request, scan_report_hash)
         VALUES ($1, $2, $3, $4::jsonb, $5)`,
        [requestId, d.diamond_id, l.participant_id, JSON.stringify(VALIDATE_OK), 'f'.repeat(64)],
      );
      const path = `/v2/diamonds/${d.diamond_id}/validate/${requestId}`;
      const result = await answered(replica.url, l.token, path);
      expect(result).toMatchObject({ verification_status: 'Unverifiable', parameters: null, verification_description: null });
      expect(result.verification_error).toMatch(/validation failed: the scan report f{64} has no extracted values/);
      const history = await client(replica.url, l.token).get(`/v2/diamonds/${d.diamond_id}/validate/historic`);
      expect(history.body).toEqual([
        expect.objectContaining({ request_id: requestId, verification_status: 'Unverifiable', verification_error: result.verification_error }),
      ]);
    });

    it('two replicas share the queue: 30 concurrent requests are each answered exactly once', async () => {
      const second = await startGisReplica(t, { VALIDATION_WORKER_ENABLED: 'true' });
      try {
        const l = await lab(t);
        const api = client(t.gis, l.token);
        const d = await eligibleDiamond(t);
        expect((await api.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).body.status).toBe('success');
        const accepted = await Promise.all(Array.from({ length: 30 }, () => api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)));
        expect(accepted.every((r) => r.status === 202)).toBe(true);
        const ids = accepted.map((r) => r.body.request_id as string);
        await waitFor(async () => {
          const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM validation_requests WHERE request_id = ANY($1) AND status <> 'Pending'`, [ids]);
          return rows[0].n === 30 ? true : undefined;
        });
        const { rows } = await t.db.query(`SELECT attempts, status FROM validation_requests WHERE request_id = ANY($1)`, [ids]);
        expect(rows.every((r) => r.attempts === 1 && r.status === 'Verified')).toBe(true);
      } finally {
        await second.close();
      }
    });
  });
});
