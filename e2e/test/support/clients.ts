import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { DiamondV1 } from '@dtp/domain';
import { onboard, tokenFor } from '@dtp/testing';
import type { Role } from '@dtp/domain';

export interface Caller {
  participant_id: string;
  token: string;
}

export async function caller(authUrl: string, role: Role, audience: 'platform' | 'search' | 'gis'): Promise<Caller> {
  const stack = { urls: { auth: authUrl } };
  const creds = await onboard(stack, role);
  return { participant_id: creds.participant_id, token: await tokenFor(stack, creds, audience) };
}

export async function json<T>(url: string, token: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

let seq = 0;
export async function registerRough(platformUrl: string, who: Caller, box = 'BOX-E2E'): Promise<DiamondV1> {
  seq += 1;
  const res = await json<DiamondV1>(`${platformUrl}/diamonds/rough/create`, who.token, 'POST', {
    box_id: box,
    participant_id: `e2e-${process.pid}-${Date.now().toString(36)}-${seq}`,
    participant_timestamp: new Date().toISOString(),
    rough: { carats: 1.5 },
  });
  if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Registers `n` diamonds with `concurrency` requests in flight; returns the count that got 200. */
export async function registerMany(platformUrl: string, who: Caller, n: number, concurrency = 16, onEach?: (done: number) => void): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      await registerRough(platformUrl, who);
      ok += 1;
      onEach?.(ok);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ok;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** diamond_id -> version_id of platform's records and of search's read model. */
export async function versions(platformDb: string, searchDb: string): Promise<{ platform: Map<string, string>; search: Map<string, string> }> {
  const p = await query<{ diamond_id: string; version_id: string }>(platformDb, 'SELECT diamond_id, version_id FROM diamonds');
  const s = await query<{ diamond_id: string; version_id: string }>(searchDb, 'SELECT diamond_id, version_id FROM search_diamonds WHERE record IS NOT NULL');
  return { platform: new Map(p.map((r) => [r.diamond_id, r.version_id])), search: new Map(s.map((r) => [r.diamond_id, r.version_id])) };
}

/** Waits until search's read model equals platform's records (same ids, same version_ids). */
export async function converged(platformDb: string, searchDb: string, timeoutMs = 60_000): Promise<number> {
  let last = '';
  try {
    return await eventually(
      async () => {
        const v = await versions(platformDb, searchDb);
        last = `platform ${v.platform.size}, search ${v.search.size}`;
        if (v.platform.size !== v.search.size) return undefined;
        for (const [id, version] of v.platform) if (v.search.get(id) !== version) return undefined;
        return v.platform.size;
      },
      'search == platform',
      timeoutMs,
      250,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message} (${last})`);
  }
}

/** Sum of a Prometheus counter on a service's /metrics (all label sets, or those with every label given). */
export async function counter(serviceUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!(line.startsWith(`${name}{`) || line.startsWith(`${name} `))) continue;
    if (wanted.every((w) => line.includes(w))) sum += Number(line.split(' ').pop());
  }
  return sum;
}
