// Jest global setup: one real PostgreSQL for the whole run (embedded, or the server in DATABASE_URL).
// Each test file creates its own databases on it (libs/testing: createTestDatabase).
// Also one Kafka wire-protocol peer (the kcat mock cluster, tools/kafka-peer.mjs) for the Kafka tests:
// KAFKA_TEST_BROKERS. When it cannot start, KAFKA_TEST_ERROR says why and every Kafka test fails with it.
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from '../embedded-pg.mjs';
import { startKafkaPeer } from '../kafka-peer.mjs';
import chromiumHelper from './chromium.js';

/**
 * Debian's chromium for the passport browser tests (apps/search/test/passport.browser.spec.ts), installed here
 * once per run when missing and the run includes search. When it cannot be installed, DTP_CHROMIUM_ERROR says why
 * and the browser tests fail with it.
 */
async function ensureBrowser(globalConfig) {
  const selected = globalConfig?.selectProjects;
  if (Array.isArray(selected) && selected.length > 0 && !selected.includes('search')) return;
  try {
    await chromiumHelper.ensureChromium((line) => process.stderr.write(`${line}\n`));
  } catch (err) {
    process.env.DTP_CHROMIUM_ERROR = err instanceof Error ? err.message : String(err);
    process.stderr.write(`[chromium] ${process.env.DTP_CHROMIUM_ERROR} (browser tests will fail)\n`);
  }
}

async function startKafka() {
  if (process.env.KAFKA_TEST_BROKERS) return;
  try {
    const peer = await startKafkaPeer({ log: (line) => process.stderr.write(`${line}\n`) });
    process.env.KAFKA_TEST_BROKERS = peer.brokers;
    globalThis.__DTP_KAFKA__ = peer;
  } catch (err) {
    process.env.KAFKA_TEST_ERROR = err instanceof Error ? err.message : String(err);
    process.stderr.write(`[kafka-peer] could not start: ${process.env.KAFKA_TEST_ERROR} (Kafka tests will fail)\n`);
  }
}

export default async function globalSetup(globalConfig) {
  await startKafka();
  await ensureBrowser(globalConfig);
  if (process.env.DATABASE_URL) {
    process.env.DTP_TEST_PG_URL = process.env.DATABASE_URL.replace(/\/[^/]*$/, '');
    return;
  }
  const dataDir = `/tmp/dtp-test-pg-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: true });
  process.env.DTP_TEST_PG_URL = pg.url;
  globalThis.__DTP_PG__ = pg;
}
