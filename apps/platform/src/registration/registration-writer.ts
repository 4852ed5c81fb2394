import { BeforeApplicationShutdown, Inject, Injectable, Optional } from '@nestjs/common';
import type { Histogram } from 'prom-client';
import { pgErrorCode, UnitOfWork } from '@dtp/database';
import { activeTraceparent } from '@dtp/events';
import { histogramOf, ServiceMetrics } from '@dtp/service-kit';
import { DiamondsRepository, NewDiamondWrite } from '../diamonds/diamonds.repository';

/** At most this many registrations share one statement (about 57 parameters each; PostgreSQL allows 65,535). */
export const MAX_ROWS_PER_STATEMENT = 32;
/**
 * At most this many shared statements run at once; registrations arriving meanwhile wait for the next one. One: the
 * registrations in flight (up to MAX_ROWS_PER_STATEMENT) share one commit instead of being split over two, and each
 * replica of several then sends PostgreSQL one commit at a time (docs/platform.md, "Registrations written together").
 */
export const MAX_STATEMENTS_IN_FLIGHT = 1;

interface Queued {
  write: NewDiamondWrite;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Writes the rough registrations of the hot path (no explicit transaction), several in one statement when they
 * arrive together: group commit, done by the service. Each registration's diamond, custody entry and event are
 * still written all or none; what changes is that registrations arriving within the same turn of the event loop,
 * or while the statement before them is running, share one statement, one round trip and one commit.
 * PostgreSQL then spends about a third of the CPU per registration, and the service less per registration on the
 * driver (docs/platform.md, "Registrations written together"). No request waits on a timer: a registration
 * that finds no statement running is written in the next turn of the event loop.
 *
 * A statement that PostgreSQL refuses (for example one duplicate among sixteen new diamonds) rolls back all of
 * its rows; each registration of it is then written alone, so each request gets its own answer (the duplicate its
 * 409, the others their 200). Any other failure (a lost connection: the outcome is unknown) is every one's error.
 * Inside a shared transaction (a request with an Idempotency-Key) the write joins that transaction instead.
 */
@Injectable()
export class RegistrationWriter implements BeforeApplicationShutdown {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  private drained: (() => void)[] = [];
  private readonly rowsPerStatement?: Histogram;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    @Optional() @Inject(ServiceMetrics) metrics?: ServiceMetrics,
  ) {
    if (metrics) this.rowsPerStatement = batchHistogram(metrics);
  }

  /** Resolves once `write` is committed (after the unit of work's commit listeners ran); rejects with its error. */
  write(write: NewDiamondWrite): Promise<void> {
    if (this.uow.inSharedTransaction) return this.joined(write);
    // The event's trace context is the request's, taken now (once): the statement runs outside the request.
    let traceparent: string | null | undefined;
    const events = write.events.map((e) =>
      e.traceparent !== undefined ? e : { ...e, traceparent: traceparent === undefined ? (traceparent = activeTraceparent()) : traceparent },
    );
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ write: { ...write, events }, resolve, reject });
      this.schedule();
    });
  }

  /** Waits until every queued registration is written (Nest calls it before the pool closes). */
  beforeApplicationShutdown(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_STATEMENTS_IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.queue.length > 0 && this.inFlight < MAX_STATEMENTS_IN_FLIGHT) {
      const batch = this.queue.length <= MAX_ROWS_PER_STATEMENT ? this.queue : this.queue.slice(0, MAX_ROWS_PER_STATEMENT);
      this.queue = batch === this.queue ? [] : this.queue.slice(MAX_ROWS_PER_STATEMENT);
      this.inFlight += 1;
      void this.statement(batch).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
        else if (this.inFlight === 0) for (const done of this.drained.splice(0)) done();
      });
    }
  }

  private async statement(batch: Queued[]): Promise<void> {
    try {
      await this.diamonds.insertManyWithOutbox(
        this.uow.standalone,
        batch.map((q) => q.write),
      );
      this.rowsPerStatement?.observe(batch.length);
    } catch (err) {
      if (batch.length === 1 || pgErrorCode(err) === undefined) {
        for (const q of batch) q.reject(err);
        return;
      }
      // Refused as a whole: nothing was written. Each one alone, so each request gets its own outcome.
      await Promise.all(batch.map((q) => this.alone(q.write).then(q.resolve, q.reject)));
      return;
    }
    this.uow.committed();
    for (const q of batch) q.resolve();
  }

  /** One registration in its own statement and transaction. */
  private async alone(write: NewDiamondWrite): Promise<void> {
    await this.diamonds.insertWithOutbox(this.uow.standalone, write.row, write.events, write.entry);
    this.rowsPerStatement?.observe(1);
    this.uow.committed();
  }

  /** One registration inside the caller's shared transaction (it commits, and wakes the listeners, with it). */
  private async joined(write: NewDiamondWrite): Promise<void> {
    await this.diamonds.insertWithOutbox(this.uow.sql, write.row, write.events, write.entry);
    this.rowsPerStatement?.observe(1);
  }
}

function batchHistogram(metrics: ServiceMetrics): Histogram {
  const name = 'platform_registrations_per_statement';
  return histogramOf(metrics.registry, {
    name,
    help: 'Rough registrations written by one statement (registrations that arrive together share one)',
    buckets: [1, 2, 4, 8, 16, MAX_ROWS_PER_STATEMENT],
  });
}
