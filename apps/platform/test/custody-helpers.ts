import { appendLeaves, canonicalJson, CustodyCheckpoint, CustodyEntry, entryHash, leafHash, nodeKeyString, rootOf } from '@dtp/domain';
import type { DiamondV1 } from '@dtp/domain';
import { compactVerify, createLocalJWKSet, JSONWebKeySet } from 'jose';
import { entryFields } from '../src/custody/custody-entry';
import { call, outboxRows, PlatformFixture } from './helpers';

export interface EntryRow extends CustodyEntry {
  seq: string;
  entry_hash: string;
  leaf_index: string | null;
  context: Record<string, string> | null;
}

export const entryOf = (r: EntryRow): CustodyEntry => entryFields(r);

/** A diamond's custody entries, oldest first; each one's stored hash is checked against its recomputed hash. */
export async function entriesOf(f: PlatformFixture, diamondId: string): Promise<EntryRow[]> {
  const { rows } = await f.db.query<EntryRow>(`SELECT * FROM custody_entries WHERE diamond_id = $1 ORDER BY seq`, [diamondId]);
  for (const r of rows) if (entryHash(entryOf(r)) !== r.entry_hash) throw new Error(`entry ${r.seq}: stored hash is not the hash of the entry`);
  return rows;
}

export async function entryCount(f: PlatformFixture): Promise<number> {
  return Number((await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_entries`)).rows[0].n);
}

export async function head(f: PlatformFixture, diamondId: string): Promise<string | null> {
  return (
    (await f.db.query<{ custody_head: string | null }>(`SELECT custody_head FROM diamonds WHERE diamond_id = $1`, [diamondId])).rows[0]?.custody_head ?? null
  );
}

/** Every `diamond.upserted` record of the diamond in the outbox, oldest first. */
export async function publishedRecords(f: PlatformFixture, diamondId: string): Promise<DiamondV1[]> {
  return (await outboxRows(f, diamondId)).filter((r) => r.event_type === 'diamond.upserted').map((r) => r.payload!.data as unknown as DiamondV1);
}

/** The root over all leaves as the entries say (leaf_index order), recomputed from nothing but their hashes. */
export async function recomputedRoot(f: PlatformFixture, size: number): Promise<string> {
  const { rows } = await f.db.query<{ entry_hash: string }>(
    `SELECT entry_hash FROM custody_entries WHERE leaf_index IS NOT NULL AND leaf_index < $1 ORDER BY leaf_index`,
    [size],
  );
  if (rows.length !== size) throw new Error(`expected ${size} leaves, found ${rows.length}`);
  const store = new Map<string, Buffer>();
  const { nodes } = appendLeaves(
    0,
    rows.map((r) => leafHash(Buffer.from(r.entry_hash, 'hex'))),
    (k) => store.get(nodeKeyString(k)),
  );
  for (const n of nodes) store.set(nodeKeyString(n.key), n.hash);
  return rootOf(size, (k) => store.get(nodeKeyString(k))).toString('hex');
}

/** Verifies a checkpoint's JWS with the published custody keys (no token); answers its protected header. */
export async function verifyCheckpoint(f: PlatformFixture, checkpoint: CustodyCheckpoint): Promise<{ kid?: string; alg?: string }> {
  const jwks = await call<JSONWebKeySet>(f, 'GET', '/.well-known/custody-keys.json', null);
  if (jwks.status !== 200) throw new Error(`custody keys: ${jwks.status}`);
  const { payload, protectedHeader } = await compactVerify(checkpoint.jws, createLocalJWKSet(jwks.body));
  const { jws: _jws, ...body } = checkpoint;
  if (Buffer.from(payload).toString('utf8') !== canonicalJson(body)) throw new Error('the JWS payload is not the JCS of the checkpoint');
  return protectedHeader;
}
