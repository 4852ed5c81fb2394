import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '@dtp/database';

/** The PostgreSQL server of this test run (started by the Jest global setup, or DATABASE_URL). */
export function testServerUrl(): string {
  const url = process.env.DTP_TEST_PG_URL;
  if (!url) throw new Error('DTP_TEST_PG_URL is not set: run tests through jest with the workspace config');
  return url;
}

/** Creates a fresh, empty database on the test server and returns its URL. */
export async function createTestDatabase(prefix: string): Promise<string> {
  const name = `t_${prefix.replace(/[^a-z0-9]/gi, '').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  const client = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(testServerUrl(), name);
}

/** Runs one statement on its own connection to `url` (a service's database, from the test's side) and returns its rows. */
export async function sqlRows<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Waits until no session of the database at `url` holds a snapshot (its own sessions idle, outside a transaction).
 *
 * For tests of what a statement reads once dead rows' index entries are marked dead: PostgreSQL marks them only when
 * no session of the database can still see the rows, and in a test run an autovacuum worker analysing a catalogue
 * table of a new database holds a snapshot for a moment, now and then. Waiting for a state, not for time.
 */
export async function noSnapshotHeld(url: string, timeoutMs = 30_000): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const until = Date.now() + timeoutMs; ;) {
      const { rows } = await client.query<{ held: string[] }>(
        `SELECT coalesce(array_agg(backend_type || ' ' || pid), '{}') AS held FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL`,
      );
      if (rows[0].held.length === 0) return;
      if (Date.now() > until) throw new Error(`sessions still holding a snapshot after ${timeoutMs} ms: ${rows[0].held.join(', ')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    await client.end();
  }
}
