import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import pino from 'pino';
import { importJWK, JWK, SignJWT } from 'jose';
import {
  DiamondV1,
  EventTypes,
  KnownEventEnvelope,
  Role,
  Topic,
  Topics,
  makeEnvelope,
  newDiamondId,
  newVersionId,
  validateEnvelope,
  VALIDATE_JSON_EXAMPLE,
  VERIFY_REQUEST_EXAMPLE,
} from '@dtp/domain';
import { FilesystemBlobStore } from '@dtp/blob-store';
import { IncomingMessage } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { ParticipantWithToken, participantWithToken, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';
import { GisConfig } from '../src/config';
import { GisDeps, gisService } from '../src/app';

export type Json = Record<string, unknown>;

export const FIXTURES = path.join(__dirname, 'fixtures', 'scan-reports');
export const fixture = (name: string) => readFile(path.join(FIXTURES, name));

/** A stack with auth and gis, a blob directory the test writes scan reports into, and event capture. */
export interface GisTestStack {
  stack: TestStack;
  gis: string;
  blobs: FilesystemBlobStore;
  blobDir: string;
  env: Record<string, string>;
  /** Every message GIS published on its topics, in order. */
  published: IncomingMessage[];
  /** GIS's database, for single statements; a pool, since tests wait on several diamonds at once. */
  db: Pool;
  close(): Promise<void>;
}

export async function startGis(env: Record<string, string> = {}): Promise<GisTestStack> {
  const blobDir = await mkdtemp(path.join(tmpdir(), 'dtp-gis-blobs-'));
  const fullEnv = { BLOB_STORE_DIR: blobDir, VALIDATION_POLL_MS: '200', ...env };
  const stack = await startTestStack({ services: ['auth', 'gis'], env: { gis: fullEnv } });
  const published: IncomingMessage[] = [];
  const group = `gis-spec-${randomUUID()}`;
  for (const topic of [Topics.GIS_ELIGIBILITY, Topics.GIS_GRADINGS, Topics.GIS_VALIDATIONS]) {
    await stack.transport.subscribe({ topic, group, fromBeginning: true, handler: async (m) => void published.push(m) });
  }
  const db = new Pool({ connectionString: stack.databases.gis, max: 4 });
  return {
    stack,
    gis: stack.urls.gis!,
    blobs: new FilesystemBlobStore(blobDir),
    blobDir,
    env: fullEnv,
    published,
    db,
    close: async () => {
      await db.end();
      await stack.close();
    },
  };
}

/** Starts another GIS instance on the same database and transport (a replica, or the service after a restart). */
export async function startGisReplica(t: GisTestStack, env: Record<string, string> = {}, deps: Partial<GisDeps> = {}): Promise<RunningService> {
  const config = loadConfig('gis', GisConfig, {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: t.stack.databases.gis,
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_JWKS_URL: `${t.stack.urls.auth}/.well-known/jwks.json`,
    GIS_AUDIENCE: TEST_AUDIENCES.gis,
    ...t.env,
    ...env,
  });
  return gisService.start(config, { transport: t.stack.transport, ...deps }, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
}

export const lab = (t: GisTestStack): Promise<ParticipantWithToken> => participantWithToken(t.stack, 'grading_lab');

/**
 * A token signed by the stack's real issuer key for any role and audience, as a misconfigured client or a
 * future issuer rule might produce (auth itself refuses e.g. a producer asking for the gis audience).
 */
export async function mintToken(t: GisTestStack, role: Role, audience: string = TEST_AUDIENCES.gis): Promise<string> {
  const auth = new Client({ connectionString: t.stack.databases.auth });
  await auth.connect();
  try {
    const { rows } = await auth.query<{ kid: string; private_jwk: string }>(
      `SELECT kid, private_jwk FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    const key = await importJWK(JSON.parse(rows[0].private_jwk) as JWK, 'ES256');
    return new SignJWT({ participant_id: randomUUID(), role })
      .setProtectedHeader({ alg: 'ES256', kid: rows[0].kid, typ: 'at+jwt' })
      .setIssuer(TEST_ISSUER)
      .setAudience(audience)
      .setSubject(`client-${randomUUID()}`)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  } finally {
    await auth.end();
  }
}

/** HTTP helpers for one caller. */
export function client(base: string, token?: string) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(token ? { authorization: token } : {}), ...extra });
  return {
    post: async (p: string, body: unknown): Promise<{ status: number; body: Json & Json[]; headers: Headers }> => {
      const res = await fetch(`${base}${p}`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json' }),
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as Json & Json[], headers: res.headers };
    },
    get: async (p: string): Promise<{ status: number; body: Json & Json[]; headers: Headers }> => {
      const res = await fetch(`${base}${p}`, { headers: headers() });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as Json & Json[], headers: res.headers };
    },
  };
}

export function scanReportXml(
  v: {
    shape?: string;
    weight?: string;
    girdle?: string;
    table?: string;
    depth?: string;
    crown?: string | null;
    pavilion?: string | null;
  } = {},
): Buffer {
  const crown = v.crown === null ? '' : `<CrownAngleAverage>${v.crown ?? '34.5'}</CrownAngleAverage>`;
  const pavilion = v.pavilion === null ? '' : `<PavilionAngleAverage>${v.pavilion ?? '40.8'}</PavilionAngleAverage>`;
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<ScanReport format="dtp-scan-report">
  <Shape>${v.shape ?? 'Round'}</Shape>
  <EstimatedWeight>${v.weight ?? '1.02'}</EstimatedWeight>
  <Measurements>
    <GirdleAverage>${v.girdle ?? '7.55'}</GirdleAverage>
    <TableAverage>${v.table ?? '3.71'}</TableAverage>
    <TotalDepth>${v.depth ?? '4.2'}</TotalDepth>
    ${crown}${pavilion}
  </Measurements>
</ScanReport>
`,
  );
}

export async function putBlob(t: GisTestStack, bytes: Buffer): Promise<string> {
  return (await t.blobs.put(Readable.from([bytes]))).hash;
}

export interface RecordOptions {
  diamondId?: string;
  lifecycle?: DiamondV1['lifecycle_state'];
  carats?: string | null;
  shape?: string | null;
  unlock?: DiamondV1['unlock_status'];
  /** Scan report hashes, oldest first. */
  reports?: string[];
  holder?: string;
}

/** A DiamondV1 record as platform publishes it. */
export function diamondRecord(o: RecordOptions = {}): DiamondV1 {
  const polished = (o.lifecycle ?? 'polished') === 'polished';
  const now = new Date().toISOString();
  const record: DiamondV1 & { holder_participant_id?: string } = {
    assurance_level: 'assured',
    current_stage: polished ? 'polished' : 'rough',
    diamond_id: o.diamondId ?? newDiamondId(),
    id: randomUUID(),
    is_current: true,
    lifecycle_state: o.lifecycle ?? 'polished',
    participant_timestamp: now,
    polished: polished
      ? {
          ...(o.carats === null ? {} : { carats: o.carats ?? '1.02' }),
          ...(o.shape === null ? {} : { shape: (o.shape ?? 'Round') as never }),
          scan_reports: (o.reports ?? []).map((hash, i) => ({
            hash,
            filename: `scan-${i}.xml`,
            description: 'scan report',
            content_type: 'application/xml',
            size: 100,
            uploaded_at: new Date(Date.parse('2025-01-01T00:00:00Z') + i * 60_000).toISOString(),
          })),
        }
      : {},
    provenance: { provenance_name: 'Karowe', provenance_type: 'mine', is_locked: true, is_country_code_available: true },
    possession_state: 'held',
    producer_uuid: randomUUID(),
    rough: { carats: '3.5' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: now,
    unlock_status: o.unlock ?? 'locked',
    version_id: newVersionId(),
    gis_status: null,
  };
  if (o.holder) record.holder_participant_id = o.holder;
  return record;
}

/** Publishes `diamond.upserted` (revision given) straight onto the stack's transport, as platform's relay would. */
export async function publishUpsert(t: GisTestStack, record: DiamondV1, revision: number): Promise<void> {
  const envelope = makeEnvelope({ event_type: EventTypes.DIAMOND_UPSERTED, data: record, revision });
  await t.stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: record.diamond_id, value: envelope }]);
}

export async function publishDeleted(t: GisTestStack, diamondId: string, revision: number): Promise<void> {
  const envelope = makeEnvelope({ event_type: EventTypes.DIAMOND_DELETED, data: { diamond_id: diamondId }, revision });
  await t.stack.transport.publish([
    { topic: Topics.PLATFORM_DIAMONDS, key: diamondId, value: envelope },
    { topic: Topics.PLATFORM_DIAMONDS, key: diamondId, value: null },
  ]);
}

export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 10_000, what = 'condition'): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until GIS has applied (or skipped as stale) revision `revision` of a diamond. */
export async function waitApplied(t: GisTestStack, diamondId: string, revision: number): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await t.db.query<{ revision: string }>(`SELECT revision FROM consumer_state WHERE key = $1`, [diamondId]);
      return rows.length > 0 && Number(rows[0].revision) >= revision ? true : undefined;
    },
    10_000,
    `revision ${revision} of ${diamondId}`,
  );
}

/** Publishes an upsert and waits until GIS holds it. */
export async function feed(t: GisTestStack, record: DiamondV1, revision = 1): Promise<DiamondV1> {
  await publishUpsert(t, record, revision);
  await waitApplied(t, record.diamond_id, revision);
  return record;
}

/** A polished diamond with a supported scan report (values as given), fed to GIS. */
export async function eligibleDiamond(t: GisTestStack, report: Parameters<typeof scanReportXml>[0] = {}, o: RecordOptions = {}): Promise<DiamondV1> {
  const hash = await putBlob(t, scanReportXml(report));
  return feed(t, diamondRecord({ reports: [hash], ...o }));
}

/** Valid envelopes GIS published on a topic for a key. */
export function publishedFor(t: GisTestStack, topic: Topic, key: string): KnownEventEnvelope[] {
  return t.published
    .filter((m) => m.topic === topic && m.key === key && m.value !== null)
    .map((m) => {
      const checked = validateEnvelope(topic, m.value);
      if (!checked.ok) throw new Error(`GIS published an invalid event: ${checked.reason}`);
      return checked.envelope;
    });
}

/** Bodies that match the test scan report: the domain's examples. */
export const VERIFY_OK = { ...VERIFY_REQUEST_EXAMPLE };
export const VALIDATE_OK = { ...VALIDATE_JSON_EXAMPLE };

/** Polls a validation request until it is answered. */
export async function answered(base: string, token: string, statusPath: string, ms = 10_000): Promise<Json> {
  const api = client(base, token);
  return waitFor(
    async () => {
      const res = await api.get(statusPath);
      if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body.verification_status === 'Pending' ? undefined : (res.body as Json);
    },
    ms,
    `answer of ${statusPath}`,
  );
}

export const pathOf = (statusUrl: string) => new URL(statusUrl).pathname;
