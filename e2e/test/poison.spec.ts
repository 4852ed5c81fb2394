import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners, Producer } from 'kafkajs';
import { DiamondV1, makeEnvelope, newDiamondId, newVersionId, Topics } from '@dtp/domain';
import { kafkaTestBrokers } from '@dtp/testing';
import { caller, Caller, eventually, query, registerRough } from './support/clients';
import { ProcessStack, startProcessStack } from './support/services';

/**
 * Issue 12 item 1 across processes: a single request used to stop search and GIS for good (a record nested 2,500
 * levels deep overflowed their consumers' validation on every redelivery). Now the request is refused at the door,
 * and hostile events published straight onto platform.diamonds.v1 are parked by both consumers, which go on.
 */
describe('poison events end to end (separate processes, Kafka peer)', () => {
  let stack: ProcessStack;
  let producer: Caller;
  let reader: Caller;
  let kafka: Producer;

  beforeAll(async () => {
    stack = await startProcessStack(['auth', 'platform', 'search', 'gis']);
    producer = await caller(stack.urls.auth, 'producer', 'platform');
    reader = await caller(stack.urls.auth, 'non_participant', 'search');
    kafka = new Kafka({ clientId: 'e2e-poison', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING }).producer({
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await kafka.connect();
  }, 180_000);

  afterAll(async () => {
    await kafka?.disconnect();
    await stack?.close();
  });

  /** A diamond.upserted envelope as JSON text, its supplementary_tags nested `levels` deep (built as text). */
  const hostileText = (id: string, levels: number) => {
    const record = {
      assurance_level: 'assured',
      current_stage: 'rough',
      diamond_id: id,
      id: randomUUID(),
      is_current: true,
      lifecycle_state: 'rough',
      participant_timestamp: '2024-05-01T10:00:00Z',
      polished: {},
      provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true },
      possession_state: 'held',
      producer_uuid: producer.participant_id,
      rough: { carats: '1.25' },
      rough_check: false,
      polished_objective_verification_results: [],
      rough_objective_verification_results: [],
      system_timestamp: '2024-05-01T10:00:01.123Z',
      unlock_status: 'locked',
      version_id: newVersionId(),
      participant_id: 'EVIL-1',
      diamond_parent_id: null,
      gis_status: null,
      supplementary_tags: { deep: '__DEEP__' },
    } as unknown as DiamondV1;
    const text = JSON.stringify(makeEnvelope({ event_type: 'diamond.upserted', data: record, revision: 1 }));
    return text.replace('"__DEEP__"', `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);
  };

  it('refuses the hostile registration with 422 (depth), not 200', async () => {
    const tags = `${'{"a":'.repeat(2_499)}{}${'}'.repeat(2_499)}`;
    const body = `{"box_id":"BOX-EVIL","participant_id":"EVIL-REQ","participant_timestamp":"2024-05-01T10:00:00Z","rough":{"carats":1},"supplementary_tags":${tags}}`;
    const res = await fetch(`${stack.urls.platform}/diamonds/rough/create`, {
      method: 'POST',
      headers: { authorization: producer.token, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(422);
    const detail = ((await res.json()) as { detail: { loc: unknown[]; type: string }[] }).detail;
    expect(detail).toHaveLength(1);
    expect(detail[0].type).toBe('json_too_deep');
    expect(detail[0].loc.slice(0, 2)).toEqual(['body', 'supplementary_tags']);
  });

  it('hostile events on the topic are parked by search and GIS; the next registration still reaches search', async () => {
    const wireTopic = `${stack.services.search.env.KAFKA_TOPIC_PREFIX}${Topics.PLATFORM_DIAMONDS}`;
    const evil = newDiamondId();
    const big = JSON.stringify(
      makeEnvelope({
        event_type: 'diamond.upserted',
        data: { ...(JSON.parse(hostileText(evil, 2)) as { data: DiamondV1 }).data, supplementary_tags: { blob: 'x'.repeat(5_000_000) } },
        revision: 1,
      }),
    );
    // Whatever partition the next registration lands on, the hostile events are ahead of it: one set per partition
    // (4). The 5 MB event once (the kcat mock keeps about 5 MiB per partition).
    for (let partition = 0; partition < 4; partition += 1) {
      await kafka.send({
        topic: wireTopic,
        acks: -1,
        messages: [
          { key: evil, value: hostileText(evil, 2_600), partition },
          { key: evil, value: 'not an envelope {', partition },
          { key: evil, value: JSON.stringify({ event_type: 'diamond.upserted', data: {} }), partition },
        ],
      });
    }
    await kafka.send({ topic: wireTopic, acks: -1, messages: [{ key: evil, value: big, partition: 3 }] });

    const created = await registerRough(stack.urls.platform, producer);
    const seen = await eventually(
      async () => {
        const res = await fetch(`${stack.urls.search}/v1/diamonds/${created.diamond_id}`, { headers: { authorization: reader.token } });
        return res.status === 200 ? ((await res.json()) as DiamondV1) : undefined;
      },
      'the next registration in search',
      60_000,
    );
    expect(seen.version_id).toBe(created.version_id);

    // Both consumers parked all 13 hostile messages with their reasons, and report them.
    for (const [app, db] of [
      ['search', stack.databases.search],
      ['gis', stack.databases.gis],
    ] as const) {
      const reasons = await eventually(
        async () => {
          const rows = await query<{ reason: string }>(db, 'SELECT reason FROM parked_events WHERE key = $1', [evil]);
          return rows.length === 13 ? rows.map((r) => r.reason.split(':')[0]) : undefined;
        },
        `${app} parked the hostile events`,
        60_000,
      );
      expect(reasons.filter((r) => r === 'too_deep')).toHaveLength(4);
      expect(reasons.filter((r) => r === 'too_large')).toHaveLength(1);
      expect(reasons.filter((r) => r === 'invalid event')).toHaveLength(8);

      const ready = (await (await fetch(`${stack.urls[app]}/health/ready`)).json()) as {
        status: string;
        checks: Record<string, string>;
        details: { events: { parked: number } };
      };
      expect(ready.checks.events).toBe('up');
      expect(ready.details.events.parked).toBeGreaterThanOrEqual(13);
      const metrics = await (await fetch(`${stack.urls[app]}/metrics`)).text();
      expect(metrics).toMatch(/consumer_parked_total\{[^}]*topic="platform\.diamonds\.v1"[^}]*reason="too_deep"[^}]*\} 4/);
    }
    // GIS took the normal registration too.
    await eventually(
      async () => {
        const rows = await query<{ n: string }>(stack.databases.gis, 'SELECT count(*) AS n FROM consumer_state WHERE key = $1', [created.diamond_id]);
        return Number(rows[0].n) === 1 ? true : undefined;
      },
      'gis applied the registration',
      60_000,
    );
  });
});
