import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { OutboxQueryable } from '@dtp/events';
import { OutboxSignal } from './outbox-signal';

/** A query inside a transaction (or on the pool): parameterised SQL, rows back. */
export interface Sql extends OutboxQueryable {
  rows<T extends QueryResultRow>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * Number of rows an INSERT/UPDATE/DELETE touched. With `prepareAs`, the statement is prepared once per
   * connection under that name and later only bound and executed (for constant hot-path statements).
   */
  exec(text: string, params?: unknown[], prepareAs?: string): Promise<number>;
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
  const e = err as { constraint?: unknown };
  return typeof e?.constraint === 'string' ? e.constraint : undefined;
}

function wrap(client: Pool | PoolClient): Sql {
  return {
    rows: async <T extends QueryResultRow>(text: string, params?: unknown[]) => (await client.query<T>(text, params)).rows,
    exec: async (text: string, params?: unknown[], prepareAs?: string) =>
      (await client.query(prepareAs ? { name: prepareAs, text, values: params } : { text, values: params })).rowCount ?? 0,
    query: (text: string, params?: unknown[]) => client.query(text, params),
  };
}

/**
 * Raw SQL on the pg pool that the TypeORM DataSource owns (one pool per service): no ORM on the hot paths,
 * one explicit transaction helper. Schema changes stay in TypeORM migrations.
 */
export class PlatformDb {
  readonly pool: Pool;
  /** Wakes the outbox relay after writes commit (see OutboxSignal). */
  readonly signal: OutboxSignal;
  private readonly direct: Sql;

  constructor(ds: DataSource) {
    const pool = (ds.driver as unknown as { master?: Pool }).master;
    if (!pool) throw new Error('PlatformDb needs an initialised DataSource');
    this.pool = pool;
    this.direct = wrap(pool);
    this.signal = new OutboxSignal(pool);
  }

  /** Tell the relay that outbox rows were committed outside `tx` (a single-statement write on `sql`). */
  committed(): void {
    this.signal.committed();
  }

  /** Outside a transaction (one statement is its own transaction). */
  get sql(): Sql {
    return this.direct;
  }

  /** Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it throws. */
  async tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        this.signal.committed();
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      }
    } finally {
      client.release(broken);
    }
  }
}

/** Sql over the transaction of a TypeORM EntityManager (e.g. the one @dtp/events' runConsumer hands a handler). */
export function sqlOfManager(manager: EntityManager): Sql {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('sqlOfManager needs a transactional EntityManager');
  return {
    rows: async <T extends QueryResultRow>(text: string, params?: unknown[]) => ((await runner.query(text, params, true)) as { records: T[] }).records ?? [],
    exec: async (text: string, params?: unknown[]) => ((await runner.query(text, params, true)) as { affected?: number }).affected ?? 0,
    query: (text: string, params?: unknown[]) => runner.query(text, params),
  };
}
