import type { DiamondV1 } from '@dtp/domain';
import { caller, Caller, converged, eventually, query, registerRough } from './support/clients';
import { ProcessStack, ServiceProcess, startProcessStack } from './support/services';

/**
 * Two platform replicas on one database (#17 item 4): one holds the outbox relay's lock and publishes, the other
 * stands by (`outbox_relay_leader` 1 and 0). SIGKILL the leader right after a burst of registrations: the other
 * replica takes the lock and publishes everything, so search ends up with every diamond exactly once, at
 * platform's revision. The time from the kill to the first new record visible in search is printed (timing
 * targets belong to the benchmark, not to tests).
 */
describe('outbox relay failover between two platform replicas (separate processes, Kafka peer)', () => {
  let stack: ProcessStack;
  let second: ServiceProcess;
  let producer: Caller;
  let reader: Caller;

  beforeAll(async () => {
    stack = await startProcessStack(['auth', 'platform', 'search']);
    const first = stack.services.platform;
    second = await ServiceProcess.hold('platform', first.env);
    await second.start();
    producer = await caller(stack.urls.auth, 'producer', 'platform');
    reader = await caller(stack.urls.auth, 'non_participant', 'search');
  }, 180_000);

  afterAll(async () => {
    await second?.close();
    await stack?.close();
  });

  const leaderGauge = async (replica: ServiceProcess): Promise<number | undefined> => {
    const text = await (await fetch(`${replica.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('outbox_relay_leader'));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };
  const inSearch = async (id: string): Promise<DiamondV1 | undefined> => {
    const res = await fetch(`${stack.urls.search}/v1/diamonds/${id}`, { headers: { authorization: reader.token } });
    return res.status === 200 ? ((await res.json()) as DiamondV1) : undefined;
  };

  it('exactly one replica publishes; killed, the other takes over and nothing is lost or applied twice', async () => {
    const replicas = [stack.services.platform, second];
    const roles = await eventually(async () => {
      const gauges = await Promise.all(replicas.map(leaderGauge));
      return gauges.filter((g) => g === 1).length === 1 && gauges.filter((g) => g === 0).length === 1 ? gauges : undefined;
    }, 'one relay leader and one standby');
    const leader = replicas[roles.indexOf(1)];
    const standby = replicas[roles.indexOf(0)];

    // Registrations through both replicas reach search while the leader publishes.
    const before = await Promise.all([registerRough(leader.url, producer), registerRough(standby.url, producer)]);
    for (const d of before) expect(await eventually(() => inSearch(d.diamond_id), `record ${d.diamond_id} in search`)).toEqual(d);

    // A burst through the leader, then SIGKILL at once: some of it is committed but not yet published.
    const burst = await Promise.all(Array.from({ length: 40 }, () => registerRough(leader.url, producer)));
    await leader.kill();
    const killedAt = Date.now();
    const after = await registerRough(standby.url, producer);
    await eventually(() => inSearch(after.diamond_id), 'a registration after the kill visible in search', 60_000);
    process.stdout.write(`relay failover: first new record visible in search ${Date.now() - killedAt} ms after the leader was killed\n`);
    expect(await leaderGauge(standby)).toBe(1);

    // Nothing lost: every diamond platform holds is in search, at platform's revision; nothing parked.
    const total = await converged(stack.databases.platform, stack.databases.search, 60_000);
    expect(total).toBeGreaterThanOrEqual(before.length + burst.length + 1);
    for (const d of [...before, ...burst, after]) expect(await inSearch(d.diamond_id)).toEqual(d);
    const platformRevisions = new Map(
      (await query<{ diamond_id: string; revision: string }>(stack.databases.platform, 'SELECT diamond_id, revision FROM diamonds')).map((r) => [
        r.diamond_id,
        r.revision,
      ]),
    );
    const held = await query<{ key: string; revision: string }>(stack.databases.search, `SELECT key, revision FROM consumer_state WHERE consumer = 'search'`);
    expect(
      held
        .filter((r) => platformRevisions.has(r.key))
        .map((r) => [r.key, r.revision])
        .sort(),
    ).toEqual([...platformRevisions].sort());
    expect(await query(stack.databases.search, 'SELECT * FROM parked_events')).toEqual([]);
    // The outbox is drained: the new leader published what the old one left (the diamonds topic: the custody
    // checkpointer keeps writing rows of its own on a timer).
    const [{ backlog }] = await query<{ backlog: number }>(
      stack.databases.platform,
      `SELECT count(*)::int AS backlog FROM outbox WHERE published_at IS NULL AND topic = 'platform.diamonds.v1'`,
    );
    expect(backlog).toBe(0);
  });
});
