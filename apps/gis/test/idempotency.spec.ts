import type { RunningService } from '@dtp/service-kit';
import type { ParticipantWithToken } from '@dtp/testing';
import { IDEMPOTENCY_KEY_IN_USE } from '@dtp/domain';
import { GisTestStack, Json, VALIDATE_OK, VERIFY_OK, answered, eligibleDiamond, lab, pathOf, startGis, startGisReplica } from './gis-helpers';

interface Answer {
  status: number;
  body: Json;
  replayed: string | null;
}

const GRADING = {
  grader_certificate_number: 'CERT-1',
  grader_report_number: 'RPT-1',
  grading_lab: 'GIA',
  graded_date: '2025-03-04T10:00:00Z',
  carats: 1.02,
  shape: 'Round',
  colour: 'E',
  clarity: 'VS1',
  cut_grade: 'EX',
};

let seq = 0;
const newKey = (label = 'k') => `${label}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

describe('Idempotency-Key on gis (verify, validate, grading)', () => {
  let t: GisTestStack;
  let l: ParticipantWithToken;

  async function keyed(path: string, key: string | null, body: unknown, who: ParticipantWithToken = l, base = t.gis): Promise<Answer> {
    const headers: Record<string, string> = { authorization: who.token, 'content-type': 'application/json' };
    if (key !== null) headers['idempotency-key'] = key;
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json, replayed: res.headers.get('idempotency-replayed') };
  }

  async function count(sql: string, params: unknown[]): Promise<number> {
    const { rows } = await t.db.query<{ n: string }>(sql, params);
    return Number(rows[0].n);
  }
  const attempts = (diamondId: string, who: ParticipantWithToken = l) =>
    count(`SELECT count(*) AS n FROM verify_attempts WHERE diamond_id = $1 AND lab_participant_id = $2`, [diamondId, who.participant_id]);

  beforeAll(async () => {
    t = await startGis();
    l = await lab(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('verify: a retry replays the answer and records one attempt; another body with the key: 422', async () => {
    const d = await eligibleDiamond(t);
    const key = newKey('verify');
    const path = `/v2/diamonds/${d.diamond_id}/verify`;
    const first = await keyed(path, key, VERIFY_OK);
    expect(first).toEqual({ status: 200, body: { status: 'success', is_locked: expect.any(Boolean) }, replayed: null });
    expect(await keyed(path, key, VERIFY_OK)).toEqual({ status: 200, body: first.body, replayed: 'true' });
    expect(await attempts(d.diamond_id)).toBe(1);
    const other = await keyed(path, key, { ...VERIFY_OK, carat_weight: 2 });
    expect(other.status).toBe(422);
    expect(other.body.detail).toEqual([expect.objectContaining({ loc: ['header', 'Idempotency-Key'], type: 'idempotency_key_reused' })]);
    expect(await attempts(d.diamond_id)).toBe(1);
    // Without the key each call is an attempt, as before.
    expect((await keyed(path, null, VERIFY_OK)).replayed).toBeNull();
    expect(await attempts(d.diamond_id)).toBe(2);
  });

  it('verify 404: the refusal and its recorded attempt commit together; the retry replays it', async () => {
    const missing = '0'.repeat(26);
    const key = newKey('verify404');
    const first = await keyed(`/v2/diamonds/${missing}/verify`, key, VERIFY_OK);
    expect(first.status).toBe(404);
    expect(await keyed(`/v2/diamonds/${missing}/verify`, key, VERIFY_OK)).toEqual({ status: 404, body: first.body, replayed: 'true' });
    expect(await attempts(missing)).toBe(1);
  });

  it('verify: concurrent requests with one key make exactly one attempt', async () => {
    const d = await eligibleDiamond(t);
    const key = newKey('verify-race');
    const answers = await Promise.all([1, 2, 3, 4].map(() => keyed(`/v2/diamonds/${d.diamond_id}/verify`, key, VERIFY_OK)));
    expect(await attempts(d.diamond_id)).toBe(1);
    expect(answers.filter((a) => a.status === 200 && a.replayed === null)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a).toMatchObject({ status: 409, body: { reason: IDEMPOTENCY_KEY_IN_USE } });
  });

  it('keys are per participant: another lab with the same key verifies on its own', async () => {
    const d = await eligibleDiamond(t);
    const other = await lab(t);
    const key = newKey('shared');
    expect((await keyed(`/v2/diamonds/${d.diamond_id}/verify`, key, VERIFY_OK)).replayed).toBeNull();
    const theirs = await keyed(`/v2/diamonds/${d.diamond_id}/verify`, key, { ...VERIFY_OK, carat_weight: 1.5 }, other);
    expect(theirs).toMatchObject({ status: 200, body: { status: 'failure' }, replayed: null });
    expect(await attempts(d.diamond_id, other)).toBe(1);
  });

  it('validate and grading: a retry replays the 202/201 and queues one job, stores one grading and publishes one event', async () => {
    const d = await eligibleDiamond(t);
    expect((await keyed(`/v2/diamonds/${d.diamond_id}/verify`, null, VERIFY_OK)).status).toBe(200);
    const vKey = newKey('validate');
    const accepted = await keyed(`/v2/diamonds/${d.diamond_id}/validate-json`, vKey, VALIDATE_OK);
    expect(accepted.status).toBe(202);
    expect(await keyed(`/v2/diamonds/${d.diamond_id}/validate-json`, vKey, VALIDATE_OK)).toEqual({ status: 202, body: accepted.body, replayed: 'true' });
    expect(await count(`SELECT count(*) AS n FROM validation_requests WHERE diamond_id = $1`, [d.diamond_id])).toBe(1);
    expect((await answered(t.gis, l.token, pathOf(accepted.body.status_url as string))).verification_status).toBe('Verified');

    const gKey = newKey('grading');
    const graded = await keyed(`/v2/diamonds/${d.diamond_id}/grading`, gKey, GRADING);
    expect(graded.status).toBe(201);
    expect(await keyed(`/v2/diamonds/${d.diamond_id}/grading`, gKey, GRADING)).toEqual({ status: 201, body: graded.body, replayed: 'true' });
    expect(await count(`SELECT count(*) AS n FROM gradings WHERE diamond_id = $1`, [d.diamond_id])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM outbox WHERE key = $1 AND event_type = 'grading.submitted'`, [d.diamond_id])).toBe(1);
  });

  it('a 412 of the handler is replayed even after the prerequisite exists', async () => {
    const d = await eligibleDiamond(t);
    const key = newKey('validate412');
    const refused = await keyed(`/v2/diamonds/${d.diamond_id}/validate-json`, key, VALIDATE_OK);
    expect(refused).toMatchObject({ status: 412, body: { reason: 'no_successful_verify' } });
    expect((await keyed(`/v2/diamonds/${d.diamond_id}/verify`, null, VERIFY_OK)).status).toBe(200);
    expect(await keyed(`/v2/diamonds/${d.diamond_id}/validate-json`, key, VALIDATE_OK)).toEqual({ status: 412, body: refused.body, replayed: 'true' });
    expect(await count(`SELECT count(*) AS n FROM validation_requests WHERE diamond_id = $1`, [d.diamond_id])).toBe(0);
  });

  it('an expired answer is not replayed', async () => {
    const d = await eligibleDiamond(t);
    const key = newKey('expired');
    const path = `/v2/diamonds/${d.diamond_id}/verify`;
    expect((await keyed(path, key, VERIFY_OK)).status).toBe(200);
    await t.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [key]);
    expect(await keyed(path, key, VERIFY_OK)).toMatchObject({ status: 200, replayed: null });
    expect(await attempts(d.diamond_id)).toBe(2);
  });

  describe('with a small connection pool (DB_POOL_SIZE=2)', () => {
    let replica: RunningService;
    beforeAll(async () => {
      replica = await startGisReplica(t, { DB_POOL_SIZE: '2', VALIDATION_WORKER_ENABLED: 'false' });
    });
    afterAll(async () => {
      await replica?.close();
    });

    it('many keyed requests at once all succeed: the shared transactions leave a connection for what they read', async () => {
      const diamonds = await Promise.all([1, 2, 3].map(() => eligibleDiamond(t)));
      const base = replica.url;
      const started = Date.now();
      const answers = await Promise.all(
        diamonds.flatMap((d) => [1, 2].map(() => keyed(`/v2/diamonds/${d.diamond_id}/verify`, newKey('pool'), VERIFY_OK, l, base))),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(Date.now() - started).toBeLessThan(4000);
      for (const d of diamonds) expect(await attempts(d.diamond_id)).toBe(2);
    });
  });
});
