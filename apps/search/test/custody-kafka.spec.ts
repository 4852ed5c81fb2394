import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { CustodyAnswer, CustodyCheckpoint, newDiamondId, Topics } from '@dtp/domain';
import { KafkaTransport, TOPIC_SPECS } from '@dtp/events';
import { startTestStack } from '@dtp/test-stack';
import { kafkaTestBrokers, participantWithToken, TestStack } from '@dtp/testing';
import { TestCustodyLog, verifyInclusion } from './custody-support';
import { eventually } from './support';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe('search custody log over the Kafka peer (the consumer as deployed)', () => {
  const prefix = `custody-${randomUUID()}.`;
  let kafka: KafkaTransport;
  let stack: TestStack;
  let token: string;

  beforeAll(async () => {
    kafka = new KafkaTransport({
      clientId: 'custody-test',
      brokers: kafkaTestBrokers(),
      logger,
      maxWaitTimeInMs: 50,
      sessionTimeoutMs: 6000,
      topicPrefix: prefix,
      groupPrefix: prefix,
    });
    await kafka.ensureTopics(TOPIC_SPECS);
    await kafka.connect();
    stack = await startTestStack({ services: ['auth', 'search'], transport: kafka });
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });

  afterAll(async () => {
    await stack?.close();
    await kafka?.close();
  });

  it('applies checkpoints in order from platform.custody.v1 and serves proofs that verify', async () => {
    const log = await TestCustodyLog.create();
    const id = newDiamondId();
    const events = [];
    for (let round = 0; round < 4; round += 1) {
      for (let i = 0; i < 3; i += 1) log.add(round === 0 && i === 0 ? id : newDiamondId(), 'registered');
      log.add(id, round === 0 ? 'file_attached' : 'unlocked');
      events.push(await log.checkpoint());
    }
    // One message per checkpoint, all at once: one key, one partition, so they arrive in order.
    await kafka.publish(events.map((e) => ({ topic: Topics.PLATFORM_CUSTODY, key: e.key, value: e })));
    const last = events[events.length - 1].data.checkpoint;
    const get = (p: string) => fetch(`${stack.urls.search}${p}`, { headers: { authorization: token } });
    const served = await eventually(
      async () => {
        const res = await get('/v1/custody/checkpoints/latest');
        if (res.status !== 200) return undefined;
        const cp = (await res.json()) as CustodyCheckpoint;
        return cp.tree_size === last.tree_size ? cp : undefined;
      },
      'the last checkpoint served',
      30_000,
    );
    expect(served).toEqual(last);
    const answer = (await (await get(`/v1/diamonds/${id}/custody`)).json()) as CustodyAnswer;
    expect(answer.entries.map((e) => e.entry.action)).toEqual(['registered', 'file_attached', 'unlocked', 'unlocked', 'unlocked']);
    for (const e of answer.entries) expect(verifyInclusion(e.entry_hash, e.leaf_index, last.tree_size, e.inclusion_proof, last.root_hash)).toBe(true);
  });
});
