import type { CustodyAnswer, DiamondHistory, DiamondV1 } from '@dtp/domain';
import { CustodyKeys, verifyCustody } from '@dtp/verify';
import { caller, Caller, counter, converged, eventually, json, query, registerMany, registerRough, sha256 } from './support/clients';
import { ProcessStack, startProcessStack } from './support/services';

/**
 * The four services as separate processes over the Kafka peer: what platform commits reaches search, through
 * the outbox, the relay, Kafka and search's idempotent consumer, also across crashes and a broker outage.
 */
describe('event pipeline end to end (separate processes, Kafka peer)', () => {
  let stack: ProcessStack;
  let producer: Caller;
  let reader: Caller;

  const searchGet = (p: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.urls.search}${p}`, { headers: { authorization: reader.token, ...headers } });

  beforeAll(async () => {
    stack = await startProcessStack();
    producer = await caller(stack.urls.auth, 'producer', 'platform');
    reader = await caller(stack.urls.auth, 'non_participant', 'search');
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('register, attach a file, read it through search (record, bytes, ETag), delete, then 404', async () => {
    const created = await registerRough(stack.urls.platform, producer);
    const id = created.diamond_id;
    const seen = await eventually(async () => {
      const res = await searchGet(`/v1/diamonds/${id}`);
      return res.status === 200 ? ((await res.json()) as DiamondV1) : undefined;
    }, 'record in search');
    expect(seen).toEqual(created);
    const history = await json<DiamondHistory>(`${stack.urls.search}/v1/diamonds/${id}/history`, reader.token);
    expect(history.body).toEqual({ diamond_id: id, ancestors: [] });

    const bytes = Buffer.from('a rough scan, byte for byte\n'.repeat(100));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'scan.bin');
    form.append('description', 'scan');
    const up = await fetch(`${stack.urls.platform}/diamonds/${id}/files/scan`, { method: 'POST', headers: { authorization: producer.token }, body: form });
    expect(up.status).toBe(201);
    const hash = sha256(bytes);
    expect(((await up.json()) as { hash: string }).hash).toBe(hash);

    const file = await eventually(async () => {
      const res = await searchGet(`/v1/diamonds/${id}/files/${hash}`);
      return res.status === 200 ? res : undefined;
    }, 'file in search');
    expect(file.headers.get('etag')).toBe(`"${hash}"`);
    expect(file.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await searchGet(`/v1/diamonds/${id}/files/${hash}`, { 'if-none-match': `"${hash}"` })).status).toBe(304);

    const del = await json<unknown>(`${stack.urls.platform}/bulk/diamonds/delete`, producer.token, 'POST', { diamonds: [{ diamond_id: id }] });
    expect(del.status).toBe(200);
    await eventually(async () => ((await searchGet(`/v1/diamonds/${id}`)).status === 404 ? true : undefined), 'search 404 after delete');
    expect((await searchGet(`/v1/diamonds/${id}/files/${hash}`)).status).toBe(404);
    await converged(stack.databases.platform, stack.databases.search);
  });

  it('fault: the search consumer SIGKILLed in the middle of 10,000 events and restarted', async () => {
    const before = await converged(stack.databases.platform, stack.databases.search);
    const search = stack.services.search;
    let killed = false;
    const registering = registerMany(stack.urls.platform, producer, 10_000, 24);
    // Kill it once it has applied a good part of the stream, while registrations continue.
    await eventually(
      async () => {
        const [{ n }] = await query<{ n: number }>(stack.databases.search, 'SELECT count(*)::int AS n FROM search_diamonds WHERE record IS NOT NULL');
        return n >= before + 3000 ? true : undefined;
      },
      'search halfway',
      120_000,
      100,
    );
    await search.kill();
    killed = true;
    await new Promise((r) => setTimeout(r, 500));
    await search.start();
    expect(await registering).toBe(10_000);
    expect(killed).toBe(true);
    const total = await converged(stack.databases.platform, stack.databases.search, 90_000);
    expect(total).toBe(before + 10_000);
    // Nothing applied twice or skipped: search holds exactly platform's revision of every diamond, and the
    // messages redelivered after the kill (offsets not yet committed) were recognised as duplicates.
    const platformRevisions = new Map(
      (await query<{ diamond_id: string; revision: string }>(stack.databases.platform, 'SELECT diamond_id, revision FROM diamonds')).map((r) => [
        r.diamond_id,
        r.revision,
      ]),
    );
    const held = await query<{ key: string; revision: string }>(stack.databases.search, `SELECT key, revision FROM consumer_state WHERE consumer = 'search'`);
    const heldLive = held.filter((r) => platformRevisions.has(r.key));
    expect(heldLive).toHaveLength(platformRevisions.size);
    for (const r of heldLive) expect(r.revision).toBe(platformRevisions.get(r.key));
    expect(await query(stack.databases.search, 'SELECT * FROM parked_events')).toEqual([]);
  });

  it('fault: the broker unreachable for 20 seconds while registrations continue', async () => {
    const before = await converged(stack.databases.platform, stack.databases.search);
    stack.proxy.down();
    const started = Date.now();
    let during = 0;
    while (Date.now() - started < 20_000) {
      await registerRough(stack.urls.platform, producer);
      during += 1;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Registrations kept working (the outbox took them); nothing reached search meanwhile.
    expect(during).toBeGreaterThan(50);
    const [{ backlog }] = await query<{ backlog: number }>(stack.databases.platform, 'SELECT count(*)::int AS backlog FROM outbox WHERE published_at IS NULL');
    expect(backlog).toBeGreaterThan(0);
    expect(await counter(stack.urls.platform, 'outbox_publish_failures_total')).toBeGreaterThan(0);
    stack.proxy.up();
    const total = await converged(stack.databases.platform, stack.databases.search, 90_000);
    expect(total).toBe(before + during);
    await eventually(async () => {
      const [{ n }] = await query<{ n: number }>(stack.databases.platform, 'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
      return n === 0 ? true : undefined;
    }, 'outbox drained');
  });

  it('fault: the platform killed between publish and mark re-publishes; search applies each event once', async () => {
    const platform = stack.services.platform;
    // The diamonds topic only: platform's custody checkpointer writes its own outbox rows on a timer.
    const diamonds = { topic: 'platform.diamonds.v1' };
    const appliedBefore = await counter(stack.urls.search, 'consumer_applied_total', diamonds);
    const dupBefore = await counter(stack.urls.search, 'consumer_duplicates_total', diamonds);
    await platform.stop();
    await platform.start({}, 'e2e/test/support/platform-relay-crash.main.ts');
    const created = await registerRough(stack.urls.platform, producer);
    const code = await platform.exited; // the relay published the batch and the process died before marking it
    expect(code).toBeNull(); // killed by a signal
    const [{ unmarked }] = await query<{ unmarked: number }>(
      stack.databases.platform,
      `SELECT count(*)::int AS unmarked FROM outbox WHERE published_at IS NULL AND topic = 'platform.diamonds.v1'`,
    );
    expect(unmarked).toBeGreaterThanOrEqual(1);
    await eventually(async () => ((await searchGet(`/v1/diamonds/${created.diamond_id}`)).status === 200 ? true : undefined), 'first delivery');
    await platform.start();
    await converged(stack.databases.platform, stack.databases.search);
    await eventually(
      async () => ((await counter(stack.urls.search, 'consumer_duplicates_total', diamonds)) >= dupBefore + unmarked ? true : undefined),
      'the re-published batch skipped',
    );
    expect((await counter(stack.urls.search, 'consumer_applied_total', diamonds)) - appliedBefore).toBe(unmarked);
    const [{ n }] = await query<{ n: number }>(
      stack.databases.platform,
      `SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND topic = 'platform.diamonds.v1'`,
    );
    expect(n).toBe(0);
  });

  it("custody: after all of the above, search's tree equals platform's at every checkpoint, and a diamond verifies", async () => {
    const created = await registerRough(stack.urls.platform, producer);
    // Every entry platform wrote has its leaf, and the latest checkpoint covers them all.
    const platformLatest = await eventually(
      async () => {
        const [row] = await query<{ entries: number; pending: number; size: number | null; number: number | null }>(
          stack.databases.platform,
          `SELECT (SELECT count(*)::int FROM custody_entries) AS entries, (SELECT count(*)::int FROM custody_entries WHERE leaf_index IS NULL) AS pending,
                (SELECT tree_size::int FROM custody_checkpoints ORDER BY number DESC LIMIT 1) AS size, (SELECT max(number)::int FROM custody_checkpoints) AS number`,
        );
        return row.pending === 0 && row.size === row.entries ? row : undefined;
      },
      'every custody entry checkpointed',
      60_000,
      250,
    );
    expect(platformLatest.entries).toBeGreaterThan(10_000);
    // Search has received every checkpoint (through the broker outage and both crashes).
    await eventually(
      async () => {
        const [{ n }] = await query<{ n: number | null }>(stack.databases.search, 'SELECT max(number)::int AS n FROM custody_checkpoints');
        return n !== null && n >= platformLatest.number! ? true : undefined;
      },
      'search holds the latest checkpoint',
      60_000,
      250,
    );
    const signed = await query<{ number: number; tree_size: number; root_hash: string }>(
      stack.databases.platform,
      'SELECT number::int, tree_size::int, root_hash FROM custody_checkpoints WHERE number <= $1 ORDER BY number',
      [platformLatest.number],
    );
    const rebuilt = await query<{ number: number; tree_size: number; root_hash: string; root_matches: boolean }>(
      stack.databases.search,
      'SELECT number::int, tree_size::int, root_hash, root_matches FROM custody_checkpoints WHERE number <= $1 ORDER BY number',
      [platformLatest.number],
    );
    expect(rebuilt.map((c) => ({ number: c.number, tree_size: c.tree_size, root_hash: c.root_hash }))).toEqual(signed);
    expect(rebuilt.every((c) => c.root_matches)).toBe(true);
    const leaves = async (db: string) =>
      (await query<{ h: string }>(db, 'SELECT entry_hash AS h FROM custody_entries WHERE leaf_index IS NOT NULL ORDER BY leaf_index')).map((r) => r.h);
    expect(await leaves(stack.databases.search)).toEqual(await leaves(stack.databases.platform));

    // An outsider's check of one diamond, against the keys platform publishes.
    const answer = await json<CustodyAnswer>(`${stack.urls.search}/v1/diamonds/${created.diamond_id}/custody`, reader.token);
    expect(answer.status).toBe(200);
    const record = await json<DiamondV1>(`${stack.urls.search}/v1/diamonds/${created.diamond_id}`, reader.token);
    const keys = (await (await fetch(`${stack.urls.platform}/.well-known/custody-keys.json`)).json()) as CustodyKeys;
    const verdict = await verifyCustody(answer.body, { diamondId: created.diamond_id, keys, record: record.body });
    expect(verdict).toMatchObject({ ok: true, entries: 1 });
  });
});
