// Jest global setup: one real PostgreSQL for the whole run (embedded, or the server in DATABASE_URL).
// Each test file creates its own databases on it (libs/testing: createTestDatabase).
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, freePort } from '../embedded-pg.mjs';

export default async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.DTP_TEST_PG_URL = process.env.DATABASE_URL.replace(/\/[^/]*$/, '');
    return;
  }
  const port = await freePort();
  const dataDir = `/tmp/dtp-test-pg-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pg = await startEmbeddedPostgres({ dataDir, port, persistent: false, fast: true });
  process.env.DTP_TEST_PG_URL = pg.url;
  globalThis.__DTP_PG__ = pg;
}
