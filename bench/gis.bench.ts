/**
 * GIS validation latency: 50 labs' clients at once, each repeatedly POSTs validate-json and polls its
 * status_url until the worker has answered. Reported:
 * - gis.validate_to_answer.p50 / .p99 (ms): client-observed, from sending the POST to reading the answer
 *   (polling every POLL_MS, so this includes up to POLL_MS of polling slack);
 * - gis.validate_queue_to_answer.p50 / .p99 (ms): server-side, requested_at -> answered_at in the job table;
 * anchor: p50 of the synchronous verify endpoint under the same 50-way concurrency, measured in the same run.
 * Starts its own embedded PostgreSQL and the auth + gis services in-process (in-process event bus).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { EventTypes, Topics, makeEnvelope, newDiamondId, newVersionId, DiamondV1, VALIDATE_JSON_EXAMPLE, VERIFY_REQUEST_EXAMPLE } from '@dtp/domain';
import { FilesystemBlobStore } from '@dtp/blob-store';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken } from '@dtp/testing';
import type { Figure } from './run';

const CONCURRENCY = 50;
const ROUNDS = 10;
const POLL_MS = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index] * 10) / 10;
}

const REPORT = Buffer.from(`<?xml version="1.0"?>
<ScanReport format="dtp-scan-report"><Shape>Round</Shape><EstimatedWeight>1.02</EstimatedWeight>
<Measurements><GirdleAverage>7.55</GirdleAverage><TableAverage>3.71</TableAverage><TotalDepth>4.2</TotalDepth>
<CrownAngleAverage>34.5</CrownAngleAverage><PavilionAngleAverage>40.8</PavilionAngleAverage></Measurements></ScanReport>`);

function record(diamondId: string, hash: string): DiamondV1 {
  const now = new Date().toISOString();
  return {
    assurance_level: 'assured',
    current_stage: 'polished',
    diamond_id: diamondId,
    id: randomUUID(),
    is_current: true,
    lifecycle_state: 'polished',
    participant_timestamp: now,
    polished: {
      carats: '1.02',
      shape: 'Round',
      scan_reports: [{ hash, filename: 'r.xml', description: null, content_type: 'application/xml', size: REPORT.length, uploaded_at: now }],
    },
    provenance: { provenance_name: 'Bench', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
    possession_state: 'held',
    producer_uuid: randomUUID(),
    rough: {},
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: now,
    unlock_status: 'locked',
    version_id: newVersionId(),
  };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export default async function gisBench(report: (f: Figure) => void): Promise<void> {
  const { startEmbeddedPostgres } = (await import('../tools/embedded-pg.mjs')) as typeof import('../tools/embedded-pg.mjs');
  const dataDir = await mkdtemp(path.join(tmpdir(), 'dtp-bench-pg-'));
  const blobDir = await mkdtemp(path.join(tmpdir(), 'dtp-bench-blobs-'));
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: true });
  process.env.DTP_TEST_PG_URL = pg.url;
  const stack = await startTestStack({ services: ['auth', 'gis'], env: { gis: { BLOB_STORE_DIR: blobDir, DB_POOL_SIZE: '20' } } });
  try {
    const gis = stack.urls.gis!;
    const hash = (await new FilesystemBlobStore(blobDir).put(Readable.from([REPORT]))).hash;
    const labs = await Promise.all(Array.from({ length: CONCURRENCY }, () => participantWithToken(stack, 'grading_lab')));
    const ids = labs.map(() => newDiamondId());
    await stack.transport.publish(
      ids.map((id) => ({
        topic: Topics.PLATFORM_DIAMONDS,
        key: id,
        value: makeEnvelope({ event_type: EventTypes.DIAMOND_UPSERTED, data: record(id, hash), revision: 1 }),
      })),
    );
    const db = new Client({ connectionString: stack.databases.gis });
    await db.connect();
    for (;;) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_diamonds WHERE diamond_id = ANY($1)`, [ids]);
      if (rows[0].n === ids.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const post = (url: string, token: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const verifyBody = VERIFY_REQUEST_EXAMPLE;
    const validateBody = VALIDATE_JSON_EXAMPLE;

    // Anchor: synchronous verify, same concurrency (also gives each lab the successful verify validate needs).
    const verifyMs: number[] = [];
    await Promise.all(
      labs.map(async (lab, i) => {
        for (let r = 0; r < ROUNDS; r++) {
          const started = performance.now();
          const body = await json(await post(`${gis}/v2/diamonds/${ids[i]}/verify`, lab.token, verifyBody));
          verifyMs.push(performance.now() - started);
          if (body.status !== 'success') throw new Error(`verify failed: ${JSON.stringify(body)}`);
        }
      }),
    );

    const clientMs: number[] = [];
    const requestIds: string[] = [];
    await Promise.all(
      labs.map(async (lab, i) => {
        for (let r = 0; r < ROUNDS; r++) {
          const started = performance.now();
          const accepted = await json(await post(`${gis}/v2/diamonds/${ids[i]}/validate-json`, lab.token, validateBody));
          const statusPath = new URL(accepted.status_url as string).pathname;
          for (;;) {
            const polled = await json(await fetch(`${gis}${statusPath}`, { headers: { authorization: lab.token } }));
            if (polled.verification_status !== 'Pending') {
              if (polled.verification_status !== 'Verified') throw new Error(`unexpected answer ${JSON.stringify(polled)}`);
              break;
            }
            await new Promise((res) => setTimeout(res, POLL_MS));
          }
          clientMs.push(performance.now() - started);
          requestIds.push(accepted.request_id as string);
        }
      }),
    );
    const { rows } = await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM (answered_at - requested_at)) * 1000 AS ms FROM validation_requests WHERE request_id = ANY($1)`,
      [requestIds],
    );
    await db.end();
    const serverMs = rows.map((r) => Number(r.ms));
    const anchor = percentile(verifyMs, 50);
    const fig = (name: string, value: number): Figure => ({ name, value, unit: 'ms', anchor, ratio: Math.round((value / anchor) * 100) / 100 });
    process.stderr.write(`# gis: ${clientMs.length} validations by ${CONCURRENCY} concurrent labs; verify p50 ${anchor} ms (anchor)\n`);
    report(fig('gis.validate_to_answer.p50', percentile(clientMs, 50)));
    report(fig('gis.validate_to_answer.p99', percentile(clientMs, 99)));
    report(fig('gis.validate_queue_to_answer.p50', percentile(serverMs, 50)));
    report(fig('gis.validate_queue_to_answer.p99', percentile(serverMs, 99)));
    report({ name: 'gis.verify.p99', value: percentile(verifyMs, 99), unit: 'ms', anchor, ratio: Math.round((percentile(verifyMs, 99) / anchor) * 100) / 100 });
  } finally {
    await stack.close();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
  }
}
