import { randomUUID } from 'node:crypto';
import { compactVerify, importJWK } from 'jose';
import {
  ConsistencyAnswer,
  CustodyAnswer,
  CustodyCheckpoint,
  CustodyCheckpointData,
  entryHash,
  EventEnvelope,
  leafHash,
  newDiamondId,
  nodeHash,
  splitPoint,
  Topics,
} from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack } from '@dtp/testing';
import { TestCustodyLog, verifyConsistency, verifyInclusion } from './custody-support';
import { eventually, withDb } from './support';

const topic = Topics.PLATFORM_CUSTODY;

/** RFC 9162 2.1.1 MTH, recursively from the leaves (the reference the stored tree is compared with). */
function mth(entryHashes: string[]): string {
  const rec = (d: Buffer[]): Buffer => (d.length === 1 ? d[0] : nodeHash(rec(d.slice(0, splitPoint(d.length))), rec(d.slice(splitPoint(d.length)))));
  return rec(entryHashes.map((h) => leafHash(Buffer.from(h, 'hex')))).toString('hex');
}

async function startSearch() {
  const stack = await startTestStack({ services: ['auth', 'search'] });
  const token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  const get = (p: string) => fetch(`${stack.urls.search}${p}`, { headers: { authorization: token } });
  const db = <T>(fn: Parameters<typeof withDb<T>>[1]) => withDb(stack.databases.search!, fn);
  return { stack, get, db };
}

describe('search custody log (platform.custody.v1)', () => {
  let stack: TestStack;
  let get: (p: string) => Promise<Response>;
  let db: Awaited<ReturnType<typeof startSearch>>['db'];
  let log: TestCustodyLog;

  const publish = (event: EventEnvelope<CustodyCheckpointData>) => stack.transport.publish([{ topic, key: event.key, value: event }]);
  /** Waits until checkpoint `number` is stored (applied, matching or not). */
  const stored = (number: number) =>
    eventually(async () => {
      const rows = await db(async (c) => (await c.query('SELECT root_matches FROM custody_checkpoints WHERE number = $1', [number])).rows);
      return rows.length > 0 ? (rows[0].root_matches as boolean) : undefined;
    }, `checkpoint ${number} stored`);
  const parkedFor = (number: number) =>
    eventually(async () => {
      const rows = await db(
        async (c) => (await c.query(`SELECT reason FROM parked_events WHERE topic = $1 AND (payload->>'revision')::int = $2`, [topic, number])).rows,
      );
      return rows.length > 0 ? (rows[0].reason as string) : undefined;
    }, `checkpoint ${number} parked`);
  const latest = async () => (await (await get('/v1/custody/checkpoints/latest')).json()) as CustodyCheckpoint;
  const custody = async (id: string) => {
    const res = await get(`/v1/diamonds/${id}/custody`);
    expect(res.status).toBe(200);
    return (await res.json()) as CustodyAnswer;
  };

  beforeAll(async () => {
    ({ stack, get, db } = await startSearch());
    log = await TestCustodyLog.create();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it("builds the tree from the events: its root equals the signed one and the RFC's MTH of the held entries; the checkpoint is served with a valid signature", async () => {
    const ids = [newDiamondId(), newDiamondId(), newDiamondId()];
    for (let i = 0; i < 11; i += 1) log.add(ids[i % 3], i < 3 ? 'registered' : 'file_attached');
    const first = await log.checkpoint();
    await publish(first);
    expect(await stored(first.revision)).toBe(true);
    for (let i = 0; i < 6; i += 1) log.add(ids[i % 3], 'unlocked');
    const second = await log.checkpoint();
    await publish(second);
    expect(await stored(second.revision)).toBe(true);

    const held = await db(async (c) => (await c.query('SELECT entry_hash FROM custody_entries ORDER BY leaf_index')).rows as { entry_hash: string }[]);
    expect(held.map((r) => r.entry_hash)).toEqual(log.entries.map((e) => e.entry_hash));
    expect(mth(held.map((r) => r.entry_hash))).toBe(second.data.checkpoint.root_hash);

    const served = await latest();
    expect(served).toEqual(second.data.checkpoint);
    const { payload } = await compactVerify(served.jws, await importJWK(log.publicJwk, 'EdDSA'));
    expect(JSON.parse(Buffer.from(payload).toString('utf8'))).toEqual({
      log_id: served.log_id,
      tree_size: served.tree_size,
      root_hash: served.root_hash,
      timestamp: served.timestamp,
    });
  });

  it("answers a diamond's entries and its ancestors' up to the link, each with an inclusion proof that verifies (RFC 9162 2.1.3.2)", async () => {
    const mine = newDiamondId();
    const rough = newDiamondId();
    const polished = newDiamondId();
    const other = newDiamondId();
    log.add(mine, 'registered');
    log.add(other, 'registered');
    const split = log.add(mine, 'split');
    log.add(rough, 'registered', { parentEntry: split.entry_hash });
    log.add(mine, 'record_updated', { actor: null }); // after the link: not part of the polished stone's chain
    const polish = log.add(rough, 'polished');
    log.add(polished, 'registered', { parentEntry: polish.entry_hash });
    log.add(other, 'file_attached');
    log.add(polished, 'grading_selected');
    const cp = await log.checkpoint();
    await publish(cp);
    await stored(cp.revision);

    const answer = await custody(polished);
    expect(answer.checkpoint).toEqual(cp.data.checkpoint);
    const chain = log.entries.filter(
      (e) => e.entry.diamond_id === polished || e.entry.diamond_id === rough || (e.entry.diamond_id === mine && e.leaf_index <= split.leaf_index),
    );
    expect(answer.entries.map(({ inclusion_proof: _, ...e }) => e)).toEqual(chain);
    for (const e of answer.entries) {
      expect(verifyInclusion(e.entry_hash, e.leaf_index, answer.checkpoint.tree_size, e.inclusion_proof, answer.checkpoint.root_hash)).toBe(true);
    }
    // A proof for another leaf, or a tampered entry hash, does not verify.
    const [a, b] = answer.entries;
    expect(verifyInclusion(a.entry_hash, a.leaf_index, answer.checkpoint.tree_size, b.inclusion_proof, answer.checkpoint.root_hash)).toBe(false);
    expect(
      verifyInclusion(
        b.entry_hash.replace(/^./, (c) => (c === '0' ? '1' : '0')),
        b.leaf_index,
        answer.checkpoint.tree_size,
        b.inclusion_proof,
        answer.checkpoint.root_hash,
      ),
    ).toBe(false);

    // The root of the chain has no ancestors; its own entries only.
    const root = await custody(mine);
    expect(root.entries.map((e) => e.entry.action)).toEqual(['registered', 'split', 'record_updated']);
  });

  it('redelivery is idempotent: the same event again changes nothing, and a later checkpoint repeating held entries appends only the new ones', async () => {
    const id = newDiamondId();
    const reg = log.add(id, 'registered');
    const cp = await log.checkpoint();
    await publish(cp);
    await stored(cp.revision);
    const before = await db(async (c) => (await c.query('SELECT count(*)::int AS n FROM custody_entries')).rows[0].n as number);
    await publish(cp);
    const shipped = log.add(id, 'shipped', { context: { counterparty_participant_id: randomUUID() } });
    // The next checkpoint repeats the entry already held (a producer's retry) before the new one.
    const overlapping = await log.checkpoint({ entries: [reg, shipped] });
    await publish(overlapping);
    expect(await stored(overlapping.revision)).toBe(true);
    const after = await db(
      async (c) => (await c.query('SELECT count(*)::int AS n, max(leaf_index)::int AS last FROM custody_entries')).rows[0] as { n: number; last: number },
    );
    expect(after).toEqual({ n: before + 1, last: shipped.leaf_index });
    const metrics = await (await fetch(`${stack.urls.search}/metrics`)).text();
    expect(metrics).toMatch(/consumer_duplicates_total\{[^}]*topic="platform.custody.v1"[^}]*\} [1-9]/);
    expect((await custody(id)).entries.map((e) => e.entry_hash)).toEqual([reg.entry_hash, shipped.entry_hash]);
  });

  it('a checkpoint whose root differs from the tree is stored, counted, and never served; the next good one is', async () => {
    const good = await latest();
    const id = newDiamondId();
    log.add(id, 'registered');
    const bad = await log.checkpoint({ rootHash: 'f'.repeat(64) });
    await publish(bad);
    expect(await stored(bad.revision)).toBe(false);
    expect(await latest()).toEqual(good);
    expect((await get(`/v1/diamonds/${id}/custody`)).status).toBe(404);
    const metrics = await (await fetch(`${stack.urls.search}/metrics`)).text();
    expect(metrics).toMatch(/custody_root_mismatches_total\{[^}]*\} 1/);

    log.add(id, 'unlocked');
    const next = await log.checkpoint();
    await publish(next);
    expect(await stored(next.revision)).toBe(true);
    expect(await latest()).toEqual(next.data.checkpoint);
    expect((await custody(id)).entries).toHaveLength(2);
  });

  it('a gap parks the checkpoint (nothing appended); the complete one after it applies', async () => {
    const size = log.size;
    const id = newDiamondId();
    log.add(id, 'registered');
    const second = log.add(id, 'unlocked');
    const gap = await log.checkpoint({ entries: [second] });
    await publish(gap);
    expect(await parkedFor(gap.revision)).toMatch(
      new RegExp(`gap in the custody log: the checkpoint's entries start at leaf ${size + 1}, search holds ${size} leaves`),
    );
    const held = await db(async (c) => (await c.query('SELECT count(*)::int AS n FROM custody_entries')).rows[0].n as number);
    expect(held).toBe(size);

    const complete = await log.checkpoint();
    await publish(complete);
    expect(await stored(complete.revision)).toBe(true);
    expect((await custody(id)).entries).toHaveLength(2);
  });

  it('an entry whose hash is not its canonical JSON, or that rewrites a held leaf, is parked', async () => {
    const id = newDiamondId();
    const e = log.add(id, 'registered');
    const forged = await log.checkpoint({ entries: [{ ...e, entry: { ...e.entry, action: 'destroyed' } }] });
    await publish(forged);
    expect(await parkedFor(forged.revision)).toMatch(/entry_hash of leaf \d+ is not the SHA-256 of its canonical entry/);
    const ok = await log.checkpoint();
    await publish(ok);
    await stored(ok.revision);
    // A rewrite of a held leaf (a forked log) with a self-consistent hash.
    const rewritten = { ...e.entry, version_id: randomUUID() };
    const fork = await log.checkpoint({ entries: [{ ...e, entry: rewritten, entry_hash: entryHash(rewritten) }], treeSize: log.size });
    await publish(fork);
    expect(await parkedFor(fork.revision)).toMatch(new RegExp(`leaf ${e.leaf_index} conflicts with the entry search holds there`));
  });

  it('consistency proofs verify between checkpoints (RFC 9162 2.1.4.2); bad sizes answer 422 naming the field', async () => {
    const older = await latest();
    const id = newDiamondId();
    for (let i = 0; i < 5; i += 1) log.add(id, i === 0 ? 'registered' : 'file_attached');
    const cp = await log.checkpoint();
    await publish(cp);
    await stored(cp.revision);
    const newer = await latest();
    expect(newer.tree_size).toBe(older.tree_size + 5);

    const res = await get(`/v1/custody/consistency?from=${older.tree_size}&to=${newer.tree_size}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ConsistencyAnswer;
    expect(body.from).toBe(older.tree_size);
    expect(body.to).toBe(newer.tree_size);
    expect(verifyConsistency(older.tree_size, newer.tree_size, body.proof, older.root_hash, newer.root_hash)).toBe(true);
    expect(verifyConsistency(older.tree_size, newer.tree_size, body.proof, 'a'.repeat(64), newer.root_hash)).toBe(false);
    // Every pair of sizes up to the latest against the log's own roots.
    for (const [m, n] of [
      [1, 1],
      [1, 2],
      [3, 7],
      [4, 8],
      [5, newer.tree_size],
      [newer.tree_size - 1, newer.tree_size],
    ]) {
      const r = (await (await get(`/v1/custody/consistency?from=${m}&to=${n}`)).json()) as ConsistencyAnswer;
      expect([m, n, verifyConsistency(m, n, r.proof, log.root(m), log.root(n))]).toEqual([m, n, true]);
    }

    const refused = async (query: string, field: string, msg: RegExp) => {
      const r = await get(`/v1/custody/consistency?${query}`);
      expect(r.status).toBe(422);
      const b = (await r.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(b.detail.some((d) => d.loc.join('.') === `query.${field}` && msg.test(d.msg))).toBe(true);
    };
    await refused(`from=2&to=1`, 'from', /must not be greater than to/);
    await refused(`from=1&to=${newer.tree_size + 1}`, 'to', new RegExp(`latest checkpoint's tree size \\(${newer.tree_size}\\)`));
    await refused('from=0&to=1', 'from', /.+/);
    await refused('from=a&to=1', 'from', /.+/);
    await refused('from=1.5&to=2', 'from', /.+/);
    await refused('from=1', 'to', /.+/);
    // One missing member, one entry naming it.
    const missing = await get('/v1/custody/consistency?to=1');
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { detail: unknown[] }).detail).toEqual([{ loc: ['query', 'from'], msg: 'from is required', type: 'missing' }]);
  });

  it('404 with a message for a diamond without entries, and for an id out of format', async () => {
    for (const id of [newDiamondId(), 'NOT-AN-ID']) {
      const res = await get(`/v1/diamonds/${id}/custody`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: expect.any(String) });
    }
  });

  it('a search token is required: 401 without one', async () => {
    const res = await fetch(`${stack.urls.search}/v1/custody/checkpoints/latest`);
    expect(res.status).toBe(401);
  });
});

describe('search custody log before the first checkpoint', () => {
  let ctx: Awaited<ReturnType<typeof startSearch>>;

  beforeAll(async () => {
    ctx = await startSearch();
  });

  afterAll(async () => {
    await ctx?.stack.close();
  });

  it('latest checkpoint 404, custody 404, any consistency 422 on `to`', async () => {
    const latest = await ctx.get('/v1/custody/checkpoints/latest');
    expect(latest.status).toBe(404);
    expect(await latest.json()).toEqual({ message: 'no custody checkpoint yet' });
    expect((await ctx.get(`/v1/diamonds/${newDiamondId()}/custody`)).status).toBe(404);
    const res = await ctx.get('/v1/custody/consistency?from=1&to=1');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0].loc).toEqual(['query', 'to']);
  });
});
