import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { IDEMPOTENCY_KEY_TTL_SECONDS } from '@dtp/domain';
import type { Sql } from '../unit-of-work';
import { UnitOfWork } from '../unit-of-work';

/** The first answer to a request with a key. */
export interface StoredAnswer {
  fingerprint: string;
  status: number;
  /** The JSON text of the answer's body; null for an empty body. */
  body: string | null;
}

/**
 * The first class id of the two-key advisory locks that serialise the requests of one (participant, key): the
 * two-key form never meets the one-key locks the services take (`pg_advisory_xact_lock(bigint)`).
 */
const LOCK_CLASS = 0x1de7;

const TABLE = 'idempotency_keys';

/** Migration step of each service that uses the IdempotencyModule (its own database, its own migrations). */
export async function createIdempotencyTable(q: Pick<QueryRunner, 'query'>): Promise<void> {
  await q.query(`
    CREATE TABLE ${TABLE} (
      participant_id text NOT NULL,
      idempotency_key text NOT NULL,
      fingerprint text NOT NULL,
      status smallint NOT NULL,
      body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (participant_id, idempotency_key)
    )`);
  await q.query(`CREATE INDEX ${TABLE}_created_at ON ${TABLE} (created_at)`);
}

export async function dropIdempotencyTable(q: Pick<QueryRunner, 'query'>): Promise<void> {
  await q.query(`DROP TABLE ${TABLE}`);
}

/**
 * idempotency_keys: the first answer per (participant, key) for 24 hours. Lock, find and save run in the
 * transaction of the request (the handler's writes and its answer commit together); the purge on its own.
 */
@Injectable()
export class IdempotencyStore {
  constructor(private readonly uow: UnitOfWork) {}

  /** Takes the (participant, key) lock for the rest of the transaction; false at once when another request holds it. */
  async tryLock(tx: Sql, participantId: string, key: string): Promise<boolean> {
    const [row] = await tx.rows<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext($1)) AS locked`, [`${participantId}\n${key}`]);
    return row.locked;
  }

  /** The unexpired first answer (older than 24 h: none). */
  async find(tx: Sql, participantId: string, key: string): Promise<StoredAnswer | null> {
    const [row] = await tx.rows<StoredAnswer>(
      `SELECT fingerprint, status, body FROM ${TABLE}
        WHERE participant_id = $1 AND idempotency_key = $2 AND created_at > now() - make_interval(secs => $3)`,
      [participantId, key, IDEMPOTENCY_KEY_TTL_SECONDS],
    );
    return row ?? null;
  }

  /** Stores the first answer; an expired row of the same key (not purged yet) is replaced. Call under `tryLock`. */
  async save(tx: Sql, participantId: string, key: string, answer: StoredAnswer): Promise<void> {
    await tx.exec(
      `INSERT INTO ${TABLE} (participant_id, idempotency_key, fingerprint, status, body) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (participant_id, idempotency_key)
       DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, body = EXCLUDED.body, created_at = EXCLUDED.created_at`,
      [participantId, key, answer.fingerprint, answer.status, answer.body],
    );
  }

  /** Deletes the answers older than 24 hours (at most `limit` per call); returns how many. */
  async purgeExpired(limit = 10_000): Promise<number> {
    return this.uow.sql.exec(
      `DELETE FROM ${TABLE} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${TABLE} WHERE created_at <= now() - make_interval(secs => $1) LIMIT $2))`,
      [IDEMPOTENCY_KEY_TTL_SECONDS, limit],
    );
  }
}
