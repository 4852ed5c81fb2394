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
