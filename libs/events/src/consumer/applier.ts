import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Tx, UnitOfWork } from '@dtp/database';
import type { EnvelopeOf } from '@dtp/domain';
import type { IncomingMessage } from '../transport';
import { RevisionClaims } from './claims';
import { errorText, isTransientError, ParkEventError } from './errors';
import type { ConsumerHealth } from './health';
import type { Inspection } from './inspect';
import { ParkedStore, parkedRows } from './parked-store';
import type { ConsumerSpans } from './spans';
import type { ConsumedEvent, ConsumeOutcome, ParkReason, RunConsumerOptions } from './types';

/** Whether the database answers now (a failure while it does not is the outage's, not the message's). */
export async function databaseAnswers(dataSource: DataSource, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      dataSource.query('SELECT 1'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('probe timed out')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How many of the inspected messages from `from` on form a run: consecutive events with distinct keys, claimed in
 * one statement. A repeated key, a tombstone or a message to park ends a run, so every claim still sees what the
 * messages before it did. 0 when the message at `from` is not an event.
 */
export function runLength<T extends string>(checks: readonly Inspection<T>[], from: number): number {
  const keys = new Set<string>();
  let j = from;
  for (; j < checks.length; j += 1) {
    const c = checks[j];
    if (c.kind !== 'event' || keys.has(c.envelope.key)) break;
    keys.add(c.envelope.key);
  }
  return j - from;
}

export interface MessageApplierParts<T extends string> {
  uow: UnitOfWork;
  /** The handler options of runConsumer: exactly one of handle and handleMany, and onTombstone or not. */
  handler: Pick<RunConsumerOptions<T>, 'handle' | 'handleMany' | 'onTombstone'>;
  inspect: (message: IncomingMessage) => Inspection<T>;
  claims: RevisionClaims;
  parked: ParkedStore;
  health: ConsumerHealth;
  spans: ConsumerSpans;
  /** A message is settled: counts, metrics, onSettled. */
  settle: (outcome: ConsumeOutcome, message: IncomingMessage, reason?: ParkReason) => void;
  /** `count` messages took `seconds` each. */
  observe: (seconds: number, count?: number) => void;
  /** Whether the database answers now (databaseAnswers). */
  databaseAnswers: () => Promise<boolean>;
  maxTransientAttempts: number;
  log: Logger;
  /** True once the consumer is closing: failures are then thrown, never parked. */
  closing: () => boolean;
}

/**
 * Applies what the transport delivers: one message in its own transaction (`message`), or consecutive messages of
 * a partition in ONE transaction (`batch`; fewer round trips and commits under load). Any failure of a batch rolls
 * it back and its messages are taken one at a time instead, so parking and retries behave exactly as for single
 * messages. A single message's failure is classified: ParkEventError and errors that are not temporary park it;
 * a temporary one is thrown (the transport redelivers it with backoff) until it has failed maxTransientAttempts
 * times while the database answered, then it is parked `retries_exhausted`.
 */
export class MessageApplier<T extends string> {
  constructor(private readonly p: MessageApplierParts<T>) {}

  /** One message, in its `process <topic>` span. */
  readonly message = (message: IncomingMessage): Promise<void> => this.p.spans.inMessage(message, () => this.single(message));

  /** Consecutive messages of one partition. */
  readonly batch = async (messages: IncomingMessage[]): Promise<void> => {
    if (messages.length === 1) return this.message(messages[0]);
    const { p } = this;
    const started = process.hrtime.bigint();
    for (const message of messages) p.health.track(message);
    const checks = messages.map(p.inspect);
    let outcomes: ConsumeOutcome[];
    try {
      outcomes = await p.uow.run(async (tx) => {
        const out: ConsumeOutcome[] = [];
        for (let i = 0; i < messages.length; i += 1) {
          const message = messages[i];
          const c = checks[i];
          if (c.kind === 'event') {
            const n = runLength(checks, i);
            const run: ConsumedEvent<T>[] = [];
            for (let j = i; j < i + n; j += 1) {
              const cj = checks[j];
              if (cj.kind === 'event') run.push({ envelope: cj.envelope, message: messages[j], heldRevision: null });
            }
            const got = await p.claims.claim(
              tx,
              message.topic,
              run.map((r) => r.envelope),
            );
            const claimed: ConsumedEvent<T>[] = [];
            run.forEach((r, k) => {
              const g = got[k];
              out.push(g ? 'applied' : 'duplicate');
              if (g) claimed.push({ ...r, heldRevision: g.held });
            });
            await this.applyClaimed(claimed, tx);
            i += n - 1;
          } else if (c.kind === 'tombstone') {
            if (!p.handler.onTombstone) out.push('tombstone_skipped');
            else {
              await this.tombstone(tx, message);
              out.push('tombstone');
            }
          } else {
            // The most faithful row only: if the database refuses it, the batch falls back to single messages.
            await p.parked.insert(tx, message, c.park, parkedRows(message, c.park)[0]);
            out.push('parked');
          }
        }
        return out;
      });
    } catch (err) {
      if (p.closing()) throw err;
      p.log.debug({ err: errorText(err), messages: messages.length }, 'batch failed; one message at a time');
      for (const message of messages) await this.message(message);
      return;
    }
    outcomes.forEach((outcome, i) => {
      const c = checks[i];
      if (c.kind === 'park') {
        p.parked.logParked(messages[i], c.park);
        p.settle(outcome, messages[i], c.park.reason);
      } else p.settle(outcome, messages[i]);
    });
    p.observe(Number(process.hrtime.bigint() - started) / 1e9 / messages.length, messages.length);
  };

  /** A batch's claimed run: applied in order (handle, each in its message's span) or at once (handleMany). */
  private async applyClaimed(claimed: ConsumedEvent<T>[], tx: Tx): Promise<void> {
    const { handle, handleMany } = this.p.handler;
    if (handleMany) {
      if (claimed.length > 0)
        await this.p.spans.inBatch(
          claimed.map((c) => c.message),
          () => handleMany(claimed, { tx, manager: tx.manager }),
        );
      return;
    }
    for (const r of claimed) {
      await this.p.spans.inMessage(r.message, () => handle!(r.envelope, { tx, manager: tx.manager, message: r.message, heldRevision: r.heldRevision }));
    }
  }

  private async tombstone(tx: Tx, message: IncomingMessage): Promise<void> {
    const heldRevision = await this.p.claims.held(tx, message.topic, message.key);
    await this.p.handler.onTombstone!(message.key, { tx, manager: tx.manager, message, heldRevision });
  }

  /** One message in its own transaction: the claim commits or rolls back with the handler's effect. */
  private applyOnce(message: IncomingMessage, envelope: EnvelopeOf<T> | null): Promise<ConsumeOutcome> {
    const { handle, handleMany } = this.p.handler;
    return this.p.uow.run(async (tx): Promise<ConsumeOutcome> => {
      if (envelope === null) {
        await this.tombstone(tx, message);
        return 'tombstone';
      }
      const [claimed] = await this.p.claims.claim(tx, message.topic, [envelope]);
      if (!claimed) return 'duplicate';
      if (handle) await handle(envelope, { tx, manager: tx.manager, message, heldRevision: claimed.held });
      else await handleMany!([{ envelope, message, heldRevision: claimed.held }], { tx, manager: tx.manager });
      return 'applied';
    });
  }

  private async park(message: IncomingMessage, reason: ParkReason, text: string): Promise<void> {
    await this.p.parked.park(message, { reason, text }, this.p.closing);
    this.p.settle('parked', message, reason);
  }

  private async single(message: IncomingMessage): Promise<void> {
    const { p } = this;
    const started = process.hrtime.bigint();
    p.health.track(message);
    const c = p.inspect(message);
    if (c.kind === 'tombstone' && !p.handler.onTombstone) {
      p.settle('tombstone_skipped', message);
      return;
    }
    if (c.kind === 'park') {
      await this.park(message, c.park.reason, c.park.text);
      return;
    }
    try {
      const outcome = await this.applyOnce(message, c.kind === 'event' ? c.envelope : null);
      p.settle(outcome, message);
    } catch (err) {
      if (p.closing()) throw err;
      if (err instanceof ParkEventError) {
        await this.park(message, 'refused', err.reason);
        return;
      }
      const detail = errorText(err);
      if (!isTransientError(err)) {
        await this.park(message, 'handler_error', `handler failed: ${detail}`);
        return;
      }
      const state = p.health.failed(message);
      if (await p.databaseAnswers()) state.counted += 1;
      if (state.counted >= p.maxTransientAttempts) {
        await this.park(
          message,
          'retries_exhausted',
          `retries_exhausted: failed ${state.counted} times with a temporary error while the database answered: ${detail}`,
        );
        return;
      }
      p.log.warn(
        { key: message.key, partition: message.partition, offset: message.offset, failures: state.failures, counted: state.counted, err: detail },
        'event failed with a temporary error; retrying',
      );
      // The transport redelivers it with backoff; the partition waits.
      throw err;
    }
    p.observe(Number(process.hrtime.bigint() - started) / 1e9);
  }
}
