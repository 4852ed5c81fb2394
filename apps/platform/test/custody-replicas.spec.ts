import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Client } from 'pg';
import type { CustodyCheckpoint, DiamondV1 } from '@dtp/domain';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { createTestDatabase, participantWithToken, ParticipantWithToken, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';
import { platformService } from '../src/app';
import { PlatformConfig } from '../src/config';
import { CUSTODY_CHECKPOINT_LOCK, CustodyCheckpointer } from '../src/custody/custody-checkpointer';
import { recomputedRoot, verifyCheckpoint } from './custody-helpers';
import { PlatformFixture, roughBody, waitFor } from './helpers';

/**
 * Two platform replicas on one database, started at the same moment, each with its own checkpointer on a short
 * timer: one signing key between them, and one checkpointer at a time (the advisory lock).
 */
describe('custody log with two platform replicas', () => {
  let stack: TestStack;
  let db: Client;
  let dbUrl: string;
  let replicas: RunningService[] = [];
  let producer: ParticipantWithToken;
  const fixture = (i: number): PlatformFixture => ({ stack, url: replicas[i].url, db, close: async () => undefined });
  const checkpointer = (i: number) => replicas[i].app.get(CustodyCheckpointer);

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    const url = (dbUrl = await createTestDatabase('platform'));
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_JWKS_URL: `${stack.urls.auth}/.well-known/jwks.json`,
      PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
      BLOB_STORE_DIR: mkdtempSync(path.join(tmpdir(), 'dtp-test-blobs-')),
      CUSTODY_CHECKPOINT_INTERVAL_MS: '150',
    };
    const config = loadConfig('platform', PlatformConfig, env);
    const logger = pino({ level: 'silent' });
    await platformService.migrate(config, logger);
    replicas = await Promise.all([0, 1].map(() => platformService.start(config, { transport: stack.transport }, logger)));
    db = new Client({ connectionString: url });
    await db.connect();
    producer = await participantWithToken(stack, 'producer', 'platform');
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await db?.end();
    await stack?.close();
  });

  const registerOn = async (i: number): Promise<DiamondV1> => {
    const res = await fetch(`${replicas[i].url}/diamonds/rough/create`, {
      method: 'POST',
      headers: { authorization: producer.token, 'content-type': 'application/json' },
      body: JSON.stringify(roughBody()),
    });
    if (res.status !== 200) throw new Error(`registration: ${res.status}`);
    return (await res.json()) as DiamondV1;
  };

  it('replicas starting together generate one signing key and publish the same key set', async () => {
    const { rows } = await db.query(`SELECT kid FROM custody_signing_keys`);
    expect(rows).toHaveLength(1);
    const sets = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/.well-known/custody-keys.json`)).json()));
    expect(sets[0]).toEqual(sets[1]);
    expect(sets[0]).toEqual({ keys: [expect.objectContaining({ kid: rows[0].kid, kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' })] });
  });

  it('the first start signed the empty tree; then the timer checkpoints what arrives, without being asked', async () => {
    const d = await registerOn(0);
    const c = await waitFor('a checkpoint with the entry', async () => {
      const { rows } = await db.query<{ leaf_index: string | null }>(`SELECT leaf_index FROM custody_entries WHERE diamond_id = $1`, [d.diamond_id]);
      return rows[0]?.leaf_index !== null && rows[0]?.leaf_index !== undefined;
    });
    expect(c).toBe(true);
    const { rows } = await db.query<{ number: string; tree_size: string }>(`SELECT number, tree_size FROM custody_checkpoints ORDER BY number`);
    expect(rows[0]).toEqual({ number: '1', tree_size: '0' });
  });

  it('while another holds the checkpoint lock, neither replica does anything; afterwards one at a time, no gap, no double', async () => {
    const lock = new Client({ connectionString: dbUrl });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT pg_advisory_xact_lock($1)', [CUSTODY_CHECKPOINT_LOCK]);
      const waiting = await Promise.all([registerOn(0), registerOn(1)]);
      expect(await Promise.all([checkpointer(0).checkpointNow(), checkpointer(1).checkpointNow()])).toEqual([
        { locked: true, checkpoints: [] },
        { locked: true, checkpoints: [] },
      ]);
      const { rows } = await db.query(`SELECT 1 FROM custody_entries WHERE diamond_id = ANY($1) AND leaf_index IS NOT NULL`, [
        waiting.map((d) => d.diamond_id),
      ]);
      expect(rows).toEqual([]);
    } finally {
      await lock.query('COMMIT');
      await lock.end();
    }

    // Both replicas' timers and explicit calls race while registrations keep arriving on both.
    const made: CustodyCheckpoint[] = [];
    for (let round = 0; round < 6; round++) {
      const [, , a, b] = await Promise.all([
        Promise.all(Array.from({ length: 8 }, () => registerOn(0))),
        Promise.all(Array.from({ length: 8 }, () => registerOn(1))),
        checkpointer(0).checkpointNow(),
        checkpointer(1).checkpointNow(),
      ]);
      made.push(...a.checkpoints, ...b.checkpoints);
    }
    // Drain: whoever gets the lock takes the rest.
    await waitFor('every entry in the tree', async () => {
      await Promise.all([checkpointer(0).checkpointNow(), checkpointer(1).checkpointNow()]);
      const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_entries WHERE leaf_index IS NULL`);
      return rows[0].n === '0';
    });
    expect(made.length).toBeGreaterThan(0);

    const total = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_entries`)).rows[0].n);
    const leaves = (await db.query<{ l: string }>(`SELECT leaf_index AS l FROM custody_entries ORDER BY leaf_index`)).rows.map((r) => Number(r.l));
    expect(leaves).toEqual(Array.from({ length: total }, (_v, i) => i));
    const checkpoints = (
      await db.query<{ number: string; tree_size: string; root_hash: string; timestamp: string; jws: string }>(
        `SELECT * FROM custody_checkpoints ORDER BY number`,
      )
    ).rows;
    expect(checkpoints.map((c) => Number(c.number))).toEqual(checkpoints.map((_c, i) => i + 1));
    const sizes = checkpoints.map((c) => Number(c.tree_size));
    expect(sizes.at(-1)).toBe(total);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeGreaterThan(sizes[i - 1]);
    const f = fixture(1);
    for (const c of checkpoints.slice(-3)) {
      expect(c.root_hash).toBe(await recomputedRoot(f, Number(c.tree_size)));
      const log_id = (
        await db.query<{ payload: { key: string } }>(`SELECT payload FROM outbox WHERE event_type = 'custody.checkpoint' AND revision = $1`, [c.number])
      ).rows[0].payload.key;
      await expect(
        verifyCheckpoint(f, { log_id, tree_size: Number(c.tree_size), root_hash: c.root_hash, timestamp: c.timestamp, jws: c.jws }),
      ).resolves.toMatchObject({ alg: 'EdDSA' });
    }
    // One event per checkpoint, none twice.
    const events = (await db.query<{ revision: string }>(`SELECT revision FROM outbox WHERE event_type = 'custody.checkpoint' ORDER BY revision`)).rows;
    expect(events.map((e) => Number(e.revision))).toEqual(checkpoints.map((c) => Number(c.number)));
  });
});
