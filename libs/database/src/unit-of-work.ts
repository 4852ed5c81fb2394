import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { UnavailableError } from '@dtp/domain';
import type { ClientBase, Pool, PoolClient, QueryResultRow } from 'pg';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** Parameterised SQL, rows back: inside a unit of work (`Tx`) or on the pool (`UnitOfWork.sql`). */
export interface Sql {
  /**
   * The rows of a statement. With `prepareAs`, the statement is prepared once per connection under that name and
   * later only bound and executed (for constant hot-path statements: PostgreSQL parses and plans it once). Only
   * for a statement that names its result columns: a prepared `SELECT *` fails ("cached plan must not change result
   * type") once a migration adds a column while the service runs.
   */
  rows<T extends QueryResultRow>(text: string, params?: unknown[], prepareAs?: string): Promise<T[]>;
  /** Number of rows an INSERT/UPDATE/DELETE touched; `prepareAs` as for `rows`. */
  exec(text: string, params?: unknown[], prepareAs?: string): Promise<number>;
  /** A statement whose result is not needed in a particular shape (e.g. `writeOutbox`). */
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/**
 * One transaction: TypeORM's `manager` (repositories, entities) and `Sql` over the same connection, and
 * `afterCommit` for side effects that must not happen unless the transaction commits (cache updates, wake-ups).
 */
export interface Tx extends Sql {
  readonly manager: EntityManager;
  /** Runs `fn` after COMMIT, in registration order; never after a rollback. A throwing hook is logged, not raised. */
  afterCommit(fn: () => void): void;
}

/** Postgres error codes the services map to answers. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';
export const PG_SERIALIZATION_FAILURE = '40001';
export const PG_DEADLOCK_DETECTED = '40P01';

export function pgErrorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.code ?? e?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

export function pgConstraint(err: unknown): string | undefined {
  const e = err as { constraint?: unknown; driverError?: { constraint?: unknown } };
  const c = e?.constraint ?? e?.driverError?.constraint;
  return typeof c === 'string' ? c : undefined;
}

/*
 * `rows`/`exec` go to the node-postgres client under TypeORM's query runner (or its pool) rather than through
 * `QueryRunner.query`: the registration benchmark showed TypeORM's per-query wrapping, and the loss of named
 * prepared statements, on the hot path. Both stay inside the same connection and transaction as `manager`.
 */
export function sqlOn(client: Pool | ClientBase): Sql {
  // A named query is prepared once per connection by pg (see `Sql.rows`).
  const statement = (text: string, values?: unknown[], name?: string) => (name ? { name, text, values } : { text, values });
  return {
    rows: async <T extends QueryResultRow>(text: string, params?: unknown[], prepareAs?: string) =>
      (await client.query<T>(statement(text, params, prepareAs))).rows,
    exec: async (text: string, params?: unknown[], prepareAs?: string) => (await client.query(statement(text, params, prepareAs))).rowCount ?? 0,
    query: (text: string, params?: unknown[]) => client.query(text, params),
  };
}

/** The pg pool a TypeORM postgres DataSource owns (PostgresDriver's public `master`). */
function poolOf(ds: DataSource): Pool {
  const pool = (ds.driver as unknown as { master?: Pool }).master;
  if (!pool) throw new Error('UnitOfWork needs an initialised postgres DataSource');
  return pool;
}

class RunnerTx implements Tx {
  readonly hooks: (() => void)[] = [];
  private readonly sql: Sql;
  private savepoints = 0;
  private statementSql?: Sql;

  constructor(readonly runner: QueryRunner) {
    this.sql = sqlOn((runner as unknown as { databaseConnection: PoolClient }).databaseConnection);
  }

  get manager(): EntityManager {
    return this.runner.manager;
  }

  rows<T extends QueryResultRow>(text: string, params?: unknown[], prepareAs?: string): Promise<T[]> {
    return this.sql.rows<T>(text, params, prepareAs);
  }

  exec(text: string, params?: unknown[], prepareAs?: string): Promise<number> {
    return this.sql.exec(text, params, prepareAs);
  }

  query(text: string, params?: unknown[]): Promise<unknown> {
    return this.sql.query(text, params);
  }

  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }

  /**
   * A unit of work inside this transaction: a SAVEPOINT, released when `fn` resolves and rolled back to when it
   * throws (with the `afterCommit` hooks `fn` registered), so `fn` is all-or-nothing as it would be on its own and
   * this transaction stays usable after its failure.
   */
  async nested<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `uow_${++this.savepoints}`;
    const mark = this.hooks.length;
    await this.sql.query(`SAVEPOINT ${name}`);
    let result: T;
    try {
      result = await fn(this);
    } catch (err) {
      // Should the rollback itself fail, the transaction is broken and its owner rolls it back whole.
      await this.sql.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      this.hooks.length = mark;
      throw err;
    }
    await this.sql.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  }

  /** `Sql` whose every statement is its own nested unit of work, as a statement on the pool is its own transaction. */
  get statements(): Sql {
    return (this.statementSql ??= {
      rows: (text, params, prepareAs) => this.nested((tx) => tx.rows(text, params, prepareAs)),
      exec: (text, params, prepareAs) => this.nested((tx) => tx.exec(text, params, prepareAs)),
      query: (text, params) => this.nested((tx) => tx.query(text, params)),
    });
  }
}

/** The transaction `UnitOfWork.runShared` opened, while its function runs (`open` turns false when it ends). */
interface SharedTx {
  readonly tx: RunnerTx;
  open: boolean;
}

/** How long `runShared` waits for one of its connections before answering 503 (the pool's own connect timeout). */
const SHARED_SLOT_WAIT_MS = 5000;
const SHARED_RETRY_AFTER_SECONDS = 1;

/**
 * At most `size` holders at once; the others wait in line, each at most `waitMs` (then `acquire` rejects).
 */
class Slots {
  private used = 0;
  private readonly waiting: { grant: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(private readonly size: number) {}

  acquire(waitMs: number): Promise<() => void> {
    const release = () => {
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant();
      } else this.used -= 1;
    };
    if (this.used < this.size) {
      this.used += 1;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => resolve(once(release)),
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(new UnavailableError('too many requests with an Idempotency-Key are running at once; retry later', SHARED_RETRY_AFTER_SECONDS));
        }, waitMs),
      };
      this.waiting.push(entry);
    });
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/**
 * The one transaction helper of every service, for HTTP handlers and event handlers alike:
 * `uow.run(async (tx) => ...)` commits when `fn` resolves and rolls back when it throws; then runs the
 * transaction's `afterCommit` hooks and the unit of work's commit listeners (e.g. the outbox relay's wake-up).
 *
 * `uow.runShared(fn)` opens a transaction that the code `fn` calls joins (AsyncLocalStorage): inside it, `run` is
 * a nested unit of work (a savepoint), `sql` runs each statement in its own savepoint, `manager` is the
 * transaction's, and `committed()` waits for the shared transaction's commit. The Idempotency-Key interceptor
 * uses it so a handler's writes and its stored answer commit together. Outside `runShared` nothing changes.
 */
@Injectable()
export class UnitOfWork {
  private readonly listeners: (() => void)[] = [];
  private direct?: Sql;
  private readonly shared = new AsyncLocalStorage<SharedTx>();
  private slots?: Slots;
  private sharedRunning = 0;

  constructor(private readonly ds: DataSource) {}

  get dataSource(): DataSource {
    return this.ds;
  }

  /**
   * Outside a transaction: each statement is its own transaction. Call `committed()` after a write that matters to
   * listeners. Inside `runShared`: each statement is its own savepoint of the shared transaction.
   */
  get sql(): Sql {
    const shared = this.current();
    if (shared) return shared.statements;
    return this.standalone;
  }

  /** True inside `runShared` (a statement on `sql` then joins the shared transaction instead of committing alone). */
  get inSharedTransaction(): boolean {
    return this.current() !== undefined;
  }

  /**
   * The pool's Sql whatever the context: each statement its own transaction, even inside `runShared` (for work
   * done on behalf of several callers, e.g. registrations written together, which must not join whichever
   * caller's transaction happened to start it).
   */
  get standalone(): Sql {
    return (this.direct ??= sqlOn(poolOf(this.ds)));
  }

  /** TypeORM's manager: the shared transaction's inside `runShared`, the DataSource's otherwise. */
  get manager(): EntityManager {
    return this.current()?.manager ?? this.ds.manager;
  }

  /** Called after every commit of this unit of work (and by `committed()`): e.g. wake the outbox relay. */
  onCommit(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners that a write outside `run` (one statement on `sql`) committed. Inside `runShared`: at its commit. */
  committed(): void {
    if (this.current()) return;
    for (const l of this.listeners) safely(l);
  }

  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const shared = this.current();
    if (shared) return shared.nested(fn);
    return this.transaction(fn);
  }

  /**
   * A transaction that everything `fn` calls joins (see the class). At most the pool's size less one run at once
   * (so the code inside can always get a connection for what it reads outside the transaction); a caller that
   * waits longer than the pool's connect timeout gets a 503 (UnavailableError). Nested in another: a savepoint.
   */
  async runShared<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) return outer.nested(fn);
    const release = await (this.slots ??= new Slots(Math.max(1, (poolOf(this.ds).options.max ?? 10) - 1))).acquire(SHARED_SLOT_WAIT_MS);
    this.sharedRunning += 1;
    try {
      return await this.transaction((tx) => {
        const shared: SharedTx = { tx, open: true };
        return this.shared
          .run(shared, () => fn(tx))
          .finally(() => {
            shared.open = false;
          });
      });
    } finally {
      release();
      // On Node 20 an enabled AsyncLocalStorage costs every promise of the process a little (promise hooks, about
      // 8 µs per request measured): switched off whenever no shared transaction runs; `run` switches it on again.
      if (--this.sharedRunning === 0) this.shared.disable();
    }
  }

  /** The open shared transaction of the calling code, if any (a context that outlived it sees none). */
  private current(): RunnerTx | undefined {
    const shared = this.shared.getStore();
    return shared?.open ? shared.tx : undefined;
  }

  private async transaction<T>(fn: (tx: RunnerTx) => Promise<T>): Promise<T> {
    const runner = this.ds.createQueryRunner();
    let result: T;
    let tx: RunnerTx;
    try {
      await runner.connect();
      tx = new RunnerTx(runner);
      await runner.startTransaction();
      try {
        result = await fn(tx);
        await runner.commitTransaction();
      } catch (err) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release();
    }
    for (const hook of tx.hooks) safely(hook);
    this.committed();
    return result;
  }
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    // A side effect after the commit must not turn a committed change into an error answer.
    process.emitWarning(`afterCommit hook failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
