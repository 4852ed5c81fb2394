import { AssignerProtocol, PartitionAssigner } from 'kafkajs';

/**
 * Round robin over the partitions of every topic, each given only to members that subscribe to that topic.
 *
 * A service's replicas share one consumer group for all the topics they consume (`KafkaTransport.subscribeAll`).
 * While a rolling upgrade adds or drops a topic, members of one group subscribe to different topics. kafkajs's own
 * round robin gives every member partitions of every topic the leader subscribes to, and a member drops the ones
 * of topics it does not subscribe to. Those partitions would then have no reader until the next rebalance, and a
 * topic only the new version reads would wait until the leader was a new member. This assigner reads each member's
 * subscription from its join metadata and hands each topic's partitions around the members that asked for it.
 * The count runs on across topics, so with many single-partition topics the members still get their share.
 */
export const SubscribedRoundRobinAssigner: PartitionAssigner = ({ cluster }) => ({
  name: 'DtpSubscribedRoundRobin',
  version: 0,
  async assign({ members, topics }) {
    const wants = new Map(
      members.map((m) => {
        const metadata = AssignerProtocol.MemberMetadata.decode(m.memberMetadata);
        return [m.memberId, new Set(metadata?.topics ?? topics)] as const;
      }),
    );
    const all = [...new Set([...wants.values()].flatMap((t) => [...t]))].sort();
    // The leader's metadata covers its own topics; a member's other topics are looked up before they are dealt.
    await cluster.addMultipleTargetTopics(all);
    const ids = [...wants.keys()].sort();
    const assignment = new Map<string, Record<string, number[]>>(ids.map((id) => [id, {}]));
    let turn = 0;
    for (const topic of all) {
      const takers = ids.filter((id) => wants.get(id)!.has(topic));
      const partitions = cluster
        .findTopicPartitionMetadata(topic)
        .map((p) => p.partitionId)
        .sort((a, b) => a - b);
      for (const partition of partitions) {
        const taker = assignment.get(takers[turn % takers.length])!;
        (taker[topic] ??= []).push(partition);
        turn += 1;
      }
    }
    return ids.map((memberId) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: assignment.get(memberId)!, userData: Buffer.alloc(0) }),
    }));
  },
  protocol({ topics }) {
    return { name: 'DtpSubscribedRoundRobin', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
  },
});
