import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** Parameterised SQL, rows back: inside a unit of work (`Tx`) or on the pool (`UnitOfWork.sql`). */
export interface Sql {
  rows<T extends QueryResultRow>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * Number of rows an INSERT/UPDATE/DELETE touched. With `prepareAs`, the statement is prepared once per
   * connection under that name and later only bound and executed (for constant hot-path statements).
   */
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
function sqlOn(client: Pool | PoolClient): Sql {
  return {
    rows: async <T extends QueryResultRow>(text: string, params?: unknown[]) => (await client.query<T>(text, params)).rows,
    exec: async (text: string, params?: unknown[], prepareAs?: string) =>
      (await client.query(prepareAs ? { name: prepareAs, text, values: params } : { text, values: params })).rowCount ?? 0,
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

  constructor(readonly runner: QueryRunner) {
    this.sql = sqlOn((runner as unknown as { databaseConnection: PoolClient }).databaseConnection);
  }

  get manager(): EntityManager {
    return this.runner.manager;
  }

  rows<T extends QueryResultRow>(text: string, params?: unknown[]): Promise<T[]> {
    return this.sql.rows<T>(text, params);
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
}

/**
 * The one transaction helper of every service, for HTTP handlers and event handlers alike:
 * `uow.run(async (tx) => ...)` commits when `fn` resolves and rolls back when it throws; then runs the
 * transaction's `afterCommit` hooks and the unit of work's commit listeners (e.g. the outbox relay's wake-up).
 */
@Injectable()
export class UnitOfWork {
  private readonly listeners: (() => void)[] = [];
  private direct?: Sql;

  constructor(private readonly ds: DataSource) {}

  get dataSource(): DataSource {
    return this.ds;
  }

  /** Outside a transaction: each statement is its own transaction. Call `committed()` after a write that matters to listeners. */
  get sql(): Sql {
    return (this.direct ??= sqlOn(poolOf(this.ds)));
  }

  /** Called after every commit of this unit of work (and by `committed()`): e.g. wake the outbox relay. */
  onCommit(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners that a write outside `run` (one statement on `sql`) committed. */
  committed(): void {
    for (const l of this.listeners) safely(l);
  }

  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
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
