import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { DiamondV1, makeEnvelope, newDiamondId, newVersionId, Role } from '@dtp/domain';
import { Client } from 'pg';
import { createDataSource, withDatabase } from '@dtp/database';
import { addOutboxTraceparent, createConsumerTables, createOutboxTable } from '../src';

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
    await addOutboxTraceparent(q);
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

/** A valid DiamondV1 record (platform.diamonds.v1 `diamond.upserted` payload). */
export function diamondRecord(id = newDiamondId(), extra: Partial<DiamondV1> = {}): DiamondV1 {
  return {
    assurance_level: 'assured',
    current_stage: 'rough',
    diamond_id: id,
    id: randomUUID(),
    is_current: true,
    lifecycle_state: 'rough',
    participant_timestamp: '2024-05-01T10:00:00Z',
    polished: {},
    provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true },
    possession_state: 'held',
    producer_uuid: '6f1c2d3e-4a5b-4c6d-8e7f-901234567890',
    rough: { carats: '1.25' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: '2024-05-01T10:00:01.123Z',
    unlock_status: 'locked',
    version_id: newVersionId(),
    participant_id: 'ERP-1',
    diamond_parent_id: null,
    gis_status: null,
    ...extra,
  };
}

/** A valid `diamond.upserted` envelope. */
export function diamondUpserted(id: string, revision: number, extra: Partial<DiamondV1> = {}) {
  return makeEnvelope({ event_type: 'diamond.upserted', data: diamondRecord(id, extra), revision });
}

/**
 * The JSON text of a `diamond.upserted` envelope whose `supplementary_tags` nest `levels` objects deep (built as
 * text: JSON.stringify itself overflows on deep values). Otherwise a valid event: only the depth is hostile.
 */
export function deepDiamondUpsertedText(id: string, revision: number, levels: number): string {
  const text = JSON.stringify(diamondUpserted(id, revision, { supplementary_tags: { deep: '__DEEP__' } } as Partial<DiamondV1>));
  const deep = `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
  return text.replace('"__DEEP__"', deep);
}

/** `{a: {a: ... {}}}`, `levels` objects in all, built without recursion. */
export function nestedObject(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i += 1) v = { a: v };
  return v;
}
