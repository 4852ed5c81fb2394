import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { makeEnvelope, Role } from '@dtp/domain';
import { Client } from 'pg';
import { createDataSource, withDatabase } from '@dtp/database';
import { createConsumerTables, createOutboxTable } from '../src';

export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A fresh database on the test run's PostgreSQL (libs/events may not import @dtp/testing). */
async function createTestDatabase(prefix: string): Promise<string> {
  const server = process.env.DTP_TEST_PG_URL;
  if (!server) throw new Error('DTP_TEST_PG_URL is not set: run tests through jest with the workspace config');
  const name = `t_${prefix}_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const client = new Client({ connectionString: withDatabase(server, 'postgres') });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(server, name);
}

/** A fresh database with the outbox, the consumer tables and a `participants` table for handler effects. */
export async function eventsDatabase(prefix: string): Promise<{ url: string; ds: DataSource }> {
  const url = await createTestDatabase(prefix);
  const ds = createDataSource({ url, service: prefix, entities: [], migrations: [], poolSize: 8 });
  await ds.initialize();
  const q = ds.createQueryRunner();
  try {
    await createOutboxTable(q);
    await createConsumerTables(q);
    await q.query(`CREATE TABLE participants (id uuid PRIMARY KEY, name text NOT NULL, applied integer NOT NULL DEFAULT 1)`);
  } finally {
    await q.release();
  }
  return { url, ds };
}

/** A valid `participant.onboarded` envelope (auth.participants.v1). */
export function onboarded(id: string, revision: number, name = `P ${revision}`, role: Role = 'producer') {
  return makeEnvelope({ event_type: 'participant.onboarded', data: { participant_id: id, name, role, provenance: null }, revision });
}

export const newId = (): string => randomUUID();

export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
