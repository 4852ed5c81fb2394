import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { CompactSign } from 'jose';
import type { Logger } from 'pino';
import type { Counter, Gauge } from 'prom-client';
import {
  appendLeaves,
  canonicalJson,
  CUSTODY_EVENT_MAX_ENTRIES,
  CustodyCheckpoint,
  CustodyCheckpointBody,
  EventTypes,
  IndexedCustodyEntry,
  leafHash,
  makeEnvelope,
  nodeKeyString,
  rangeNodes,
  rootOf,
  Topics,
} from '@dtp/domain';
import { Tx, UnitOfWork } from '@dtp/database';
import { OutboxEvent, writeOutbox } from '@dtp/events';
import { counterOf, gaugeOf, LOGGER, ServiceMetrics } from '@dtp/service-kit';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import { CUSTODY_SIGNING_ALG, CustodyKeys } from './custody-keys';
import { CheckpointRow, CustodyRepository } from './custody.repository';

/** Transaction-scoped advisory lock of the checkpointer: one replica appends to the tree at a time. */
export const CUSTODY_CHECKPOINT_LOCK = 0x64747074; // "dtpt"

/** Checkpoints signed in one transaction at most (each of at most CUSTODY_EVENT_MAX_ENTRIES entries). */
export const CHECKPOINTS_PER_ROUND = 8;

/** What one `checkpointNow()` did: `locked` when another instance held the lock (nothing done here). */
export interface CheckpointOutcome {
  locked: boolean;
  checkpoints: CustodyCheckpoint[];
}

interface Metrics {
  treeSize: Gauge;
  pending: Gauge;
  checkpoints: Counter;
}

/**
 * Puts committed custody entries into the Merkle tree and signs its head (DESIGN.md "Provenance"). Every
 * CUSTODY_CHECKPOINT_INTERVAL_MS (and on `checkpointNow()`), in one transaction holding
 * pg_try_advisory_xact_lock (another replica holding it: nothing to do here this time): entries without a leaf
 * index, in seq order, get the next leaf indices, the tree is extended from the last checkpoint's frontier (the
 * perfect nodes covering it: all platform keeps of the tree; search keeps the whole tree and serves the proofs),
 * and every CUSTODY_EVENT_MAX_ENTRIES of them (or fewer, the last) make a checkpoint {log_id, tree_size, root_hash,
 * timestamp}, signed (JWS compact, EdDSA), stored with its frontier, and carried with its entries by one
 * `custody.checkpoint` outbox event. Up to CHECKPOINTS_PER_ROUND checkpoints per transaction; more pending: more
 * transactions in the same tick.
 * A new log's first start signs the empty tree at once (and any tick signs when no checkpoint exists yet). The
 * timer is unref'ed and stopped (after the running tick) when the application closes.
 */
@Injectable()
export class CustodyCheckpointer implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private metrics?: Metrics;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: CustodyRepository,
    private readonly keys: CustodyKeys,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Optional() @Inject(ServiceMetrics) serviceMetrics?: ServiceMetrics,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {
    if (serviceMetrics) this.metrics = custodyMetrics(serviceMetrics);
  }

  async onApplicationBootstrap(): Promise<void> {
    // The key first: a generated one is created at start (under its lock), not in the middle of a tick.
    await this.keys.active();
    // A new log gets its first checkpoint (the empty tree) at once, so there is one to serve from the start. Later
    // starts leave pending entries to the timer: a start does not publish before the service's own requests.
    try {
      if (!(await this.repo.latestCheckpoint(this.uow.sql))) await this.checkpointNow();
    } catch (err) {
      this.logger?.error({ err }, 'custody checkpoint at start failed; the timer tries again');
    }
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running.catch(() => undefined);
  }

  /**
   * Checkpoints every entry committed before the call (after a tick already running here). Several rounds when
   * more than CUSTODY_EVENT_MAX_ENTRIES wait.
   */
  checkpointNow(): Promise<CheckpointOutcome> {
    const next = this.running.catch(() => undefined).then(() => this.drain());
    this.running = next;
    return next;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.checkpointNow()
        .catch((err: unknown) => this.logger?.error({ err }, 'custody checkpoint failed; trying again at the next tick'))
        .finally(() => this.schedule());
    }, this.config.CUSTODY_CHECKPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  private async drain(): Promise<CheckpointOutcome> {
    const checkpoints: CustodyCheckpoint[] = [];
    for (;;) {
      const round = await this.uow.run((tx) => this.round(tx));
      if (round === 'locked') return { locked: true, checkpoints };
      checkpoints.push(...round.checkpoints);
      this.metrics?.pending.set(round.pendingAfter);
      if (!round.more) break;
    }
    return { locked: false, checkpoints };
  }

  /**
   * One transaction: up to CHECKPOINTS_PER_ROUND checkpoints of at most CUSTODY_EVENT_MAX_ENTRIES entries each, from
   * one read of the pending entries, one UPDATE giving their leaf indices, one INSERT of the checkpoints and one of
   * their events (a backlog costs a few statements per thousand entries, not per checkpoint).
   */
  private async round(tx: Tx): Promise<'locked' | { checkpoints: CustodyCheckpoint[]; more: boolean; pendingAfter: number }> {
    const [{ ok }] = await tx.rows<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [CUSTODY_CHECKPOINT_LOCK]);
    if (!ok) return 'locked';
    const last = await this.repo.latestCheckpoint(tx);
    const limit = CUSTODY_EVENT_MAX_ENTRIES * CHECKPOINTS_PER_ROUND;
    const pending = await this.repo.pending(tx, limit);
    let size = last?.tree_size ?? 0;
    this.metrics?.treeSize.set(size);
    if (pending.length === 0 && last) return { checkpoints: [], more: false, pendingAfter: 0 };

    // The last checkpoint's frontier is the whole tree as far as appending goes (no node table to read or write).
    const frontierKeys = size > 0 ? rangeNodes(0, size) : [];
    if (last && last.frontier.length !== frontierKeys.length) {
      throw new Error(`custody checkpoint ${last.number} has ${last.frontier.length} frontier hashes, expected ${frontierKeys.length}`);
    }
    let known = new Map(frontierKeys.map((k, i) => [nodeKeyString(k), last!.frontier[i]]));
    if (pending.length > 0)
      await this.repo.assignLeaves(
        tx,
        pending.map((p) => p.seq),
        size,
      );

    const signer = await this.keys.active();
    const rows: CheckpointRow[] = [];
    const events: OutboxEvent[] = [];
    const checkpoints: CustodyCheckpoint[] = [];
    let number = last?.number ?? 0;
    // An empty log's first checkpoint (the empty tree) is one chunk without entries.
    for (let start = 0; start < pending.length || (start === 0 && !last); start += CUSTODY_EVENT_MAX_ENTRIES) {
      const chunk = pending.slice(start, start + CUSTODY_EVENT_MAX_ENTRIES);
      const appended = appendLeaves(
        size,
        chunk.map((p) => leafHash(Buffer.from(p.entry_hash, 'hex'))),
        (k) => known.get(nodeKeyString(k)),
      );
      const treeSize = size + chunk.length;
      const keys = treeSize > 0 ? rangeNodes(0, treeSize) : [];
      const frontier = keys.map((k) => appended.lookup(k)!);
      const body: CustodyCheckpointBody = {
        log_id: this.config.custodyLogId,
        tree_size: treeSize,
        root_hash: rootOf(treeSize, appended.lookup).toString('hex'),
        timestamp: new Date().toISOString(),
      };
      const jws = await new CompactSign(Buffer.from(canonicalJson(body), 'utf8'))
        .setProtectedHeader({ alg: CUSTODY_SIGNING_ALG, kid: signer.kid })
        .sign(signer.key);
      const checkpoint: CustodyCheckpoint = { ...body, jws };
      number += 1;
      rows.push({ number, tree_size: treeSize, root_hash: body.root_hash, timestamp: body.timestamp, kid: signer.kid, jws, frontier });
      const entries: IndexedCustodyEntry[] = chunk.map((p, i) => ({
        entry: p.entry,
        entry_hash: p.entry_hash,
        leaf_index: size + i,
        ...(p.context ? { context: p.context } : {}),
      }));
      events.push(checkpointEvent(checkpoint, entries, number));
      checkpoints.push(checkpoint);
      size = treeSize;
      known = new Map(keys.map((k, i) => [nodeKeyString(k), frontier[i]]));
    }
    await this.repo.insertCheckpoints(tx, rows);
    await writeOutbox(tx, events);
    const more = pending.length === limit;
    // Counted after this transaction's UPDATE: the entries just given leaves are no longer pending.
    const pendingAfter = more ? await this.repo.pendingCount(tx) : 0;
    const treeSize = size;
    tx.afterCommit(() => {
      this.metrics?.checkpoints.inc(checkpoints.length);
      this.metrics?.treeSize.set(treeSize);
    });
    return { checkpoints, more, pendingAfter };
  }
}

/** `custody.checkpoint` on platform.custody.v1: key = log_id, revision = the checkpoint's number. */
export function checkpointEvent(checkpoint: CustodyCheckpoint, entries: IndexedCustodyEntry[], number: number): OutboxEvent {
  const envelope = makeEnvelope({
    event_type: EventTypes.CUSTODY_CHECKPOINT,
    data: { checkpoint, entries },
    revision: number,
    key: checkpoint.log_id,
    occurred_at: checkpoint.timestamp,
  });
  return { topic: Topics.PLATFORM_CUSTODY, key: checkpoint.log_id, eventType: envelope.event_type, revision: number, payload: envelope };
}

function custodyMetrics(metrics: ServiceMetrics): Metrics {
  const registry = metrics.registry;
  return {
    treeSize: gaugeOf(registry, { name: 'custody_tree_size', help: "Leaves in the custody log Merkle tree (the latest checkpoint's tree_size)" }),
    pending: gaugeOf(registry, { name: 'custody_pending_entries', help: 'Custody entries committed but not in a checkpoint yet (as of the last tick)' }),
    checkpoints: counterOf(registry, { name: 'custody_checkpoints_total', help: 'Custody checkpoints this instance signed' }),
  };
}
