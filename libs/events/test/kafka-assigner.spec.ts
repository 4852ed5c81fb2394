import { AssignerProtocol, Cluster } from 'kafkajs';
import pino from 'pino';
import { SubscribedRoundRobinAssigner } from '../src/kafka-assigner';

/** A cluster that knows each topic's partition count, and records the topics whose metadata was asked for. */
function cluster(partitions: Record<string, number>, asked: string[][]): Cluster {
  return {
    addMultipleTargetTopics: async (topics: string[]) => void asked.push([...topics]),
    findTopicPartitionMetadata: (topic: string) => Array.from({ length: partitions[topic] ?? 0 }, (_, i) => ({ partitionId: partitions[topic] - 1 - i })),
  } as unknown as Cluster;
}

const member = (memberId: string, topics: string[]) => ({
  memberId,
  memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
});

async function assign(partitions: Record<string, number>, members: ReturnType<typeof member>[], leaderTopics: string[], asked: string[][] = []) {
  const assigner = SubscribedRoundRobinAssigner({ cluster: cluster(partitions, asked), groupId: 'g', logger: pino({ level: 'silent' }) as never });
  const result = await assigner.assign({ members, topics: leaderTopics });
  return Object.fromEntries(result.map((r) => [r.memberId, AssignerProtocol.MemberAssignment.decode(r.memberAssignment)!.assignment]));
}

describe('SubscribedRoundRobinAssigner (one group, several topics)', () => {
  it("gives each topic's partitions only to the members that subscribe to it, the leader's own topics or not", async () => {
    const asked: string[][] = [];
    // The leader (old) reads a and b; a newer member also reads c, which the leader does not know.
    const got = await assign({ a: 4, b: 2, c: 3 }, [member('m1-old', ['a', 'b']), member('m2-new', ['a', 'b', 'c'])], ['a', 'b'], asked);
    expect(got['m1-old'].c).toBeUndefined();
    expect(got['m2-new'].c).toEqual([0, 1, 2]);
    expect([...got['m1-old'].a, ...got['m2-new'].a].sort()).toEqual([0, 1, 2, 3]);
    expect(got['m1-old'].a).toHaveLength(2);
    expect([...got['m1-old'].b, ...got['m2-new'].b].sort()).toEqual([0, 1]);
    expect(asked).toEqual([['a', 'b', 'c']]);
  });

  it('splits every topic evenly between replicas that read the same topics, and the single partitions too', async () => {
    const members = ['r1', 'r2'].map((id) => member(id, ['x', 'y', 'one-1', 'one-2']));
    const got = await assign({ x: 4, y: 4, 'one-1': 1, 'one-2': 1 }, members, ['x', 'y', 'one-1', 'one-2']);
    for (const id of ['r1', 'r2']) {
      expect(got[id].x).toHaveLength(2);
      expect(got[id].y).toHaveLength(2);
    }
    expect([got.r1['one-1'], got.r2['one-1']].filter(Boolean)).toHaveLength(1);
    expect(Object.values(got).map((a) => Object.values(a).flat().length)).toEqual([5, 5]);
  });
});
