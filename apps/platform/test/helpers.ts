import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { DiamondV1 } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, ParticipantWithToken, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';
import type { Role } from '@dtp/domain';

/** The platform stack of one spec file: auth + platform, and a pg client on platform's own database. */
export interface PlatformFixture {
  stack: TestStack;
  url: string;
  db: Client;
  close(): Promise<void>;
}

export async function startPlatform(env: Record<string, string> = {}): Promise<PlatformFixture> {
  const stack = await startTestStack({ services: ['auth', 'platform'], env: { platform: env } });
  const db = new Client({ connectionString: stack.databases.platform });
  await db.connect();
  return {
    stack,
    url: stack.urls.platform!,
    db,
    close: async () => {
      await db.end();
      await stack.close();
    },
  };
}

/** The env of another platform replica on database `url` (in this process or a child): tokens are not checked against a live auth. */
export function platformReplicaEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_JWKS_URL: 'http://127.0.0.1:9/.well-known/jwks.json',
    PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
    BLOB_STORE_DIR: mkdtempSync(path.join(tmpdir(), 'dtp-test-blobs-')),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...extra,
  };
}

export async function participant(f: PlatformFixture, role: Role, opts?: Parameters<typeof participantWithToken>[3]): Promise<ParticipantWithToken> {
  return participantWithToken(f.stack, role, 'platform', opts);
}

export interface JsonResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** A JSON call to platform; `token` null sends no Authorization header. */
export async function call<T = unknown>(f: PlatformFixture, method: string, path: string, token: string | null, body?: unknown): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${f.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T, headers: res.headers };
}

let seq = 0;
/** A unique participant_id for this test run. */
/** The Unix time in milliseconds of a UUIDv7 (its first 48 bits), after checking its version and variant. */
export function uuidV7Millis(id: string): number {
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

export function pid(prefix = 'erp'): string {
  seq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq}`;
}

export function roughBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    box_id: 'BOX-1',
    participant_id: pid(),
    participant_timestamp: '2024-03-01T10:00:00Z',
    rough: { carats: 1.25 },
    ...overrides,
  };
}

/** Registers a rough diamond and returns the record (fails the test on anything but 200). */
export async function register(f: PlatformFixture, who: ParticipantWithToken, overrides: Record<string, unknown> = {}): Promise<DiamondV1> {
  const res = await call<DiamondV1>(f, 'POST', '/diamonds/rough/create', who.token, roughBody(overrides));
  if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  event_type: string;
  revision: string;
  payload: { event_type: string; revision: number; key: string; data: Record<string, unknown> } | null;
}

export async function outboxRows(f: PlatformFixture, key?: string): Promise<OutboxRow[]> {
  const { rows } = key
    ? await f.db.query<OutboxRow>(`SELECT * FROM outbox WHERE key = $1 ORDER BY id`, [key])
    : await f.db.query<OutboxRow>(`SELECT * FROM outbox ORDER BY id`);
  return rows;
}

/**
 * Outbox rows of the changes requests make (diamonds, shipments): the custody checkpointer's own events
 * (platform.custody.v1), written by its timer at any moment, are not counted.
 */
export async function outboxCount(f: PlatformFixture): Promise<number> {
  const { rows } = await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM outbox WHERE topic <> 'platform.custody.v1'`);
  return Number(rows[0].n);
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until platform has consumed the participant's onboarding event. */
export async function participantKnown(f: PlatformFixture, participantId: string): Promise<void> {
  await waitFor(`participant ${participantId} on platform`, async () => {
    const { rows } = await f.db.query(`SELECT 1 FROM participants WHERE participant_id = $1`, [participantId]);
    return rows.length > 0;
  });
}
