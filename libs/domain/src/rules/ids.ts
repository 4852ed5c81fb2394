import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { v7 as uuidV7 } from 'uuid';

/** Platform diamond id (spec: lowercase letters and digits, length 20 to 98). */
export const DIAMOND_ID_PATTERN = /^[a-z0-9]{20,98}$/;

export function isDiamondId(value: unknown): value is string {
  return typeof value === 'string' && DIAMOND_ID_PATTERN.test(value);
}

/** A file's hash in every file ref and in the blob store: lowercase hex SHA-256 of the bytes. */
export const FILE_HASH_PATTERN = /^[0-9a-f]{64}$/;

export function isFileHash(value: unknown): value is string {
  return typeof value === 'string' && FILE_HASH_PATTERN.test(value);
}

/** A UUID in its canonical text form (any version; either case): participants, gradings, validation requests. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/**
 * A UUID as ids are stored and compared: lowercase. RFC 9562 (section 4) writes UUIDs in lowercase and reads them in
 * either case, and some systems write them in uppercase (SQL Server's uniqueidentifier, for one).
 */
export function canonicalUuid(value: string): string {
  return value.toLowerCase();
}

/**
 * A graded measurement id: a UUID when the platform or GIS mints it, or any id a lab system gives in the same
 * safe alphabet (letters, digits, `.`, `_`, `:`, `-`; 1 to 128 characters, starting with a letter or digit).
 */
export const GRADING_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isGradingId(value: unknown): value is string {
  return typeof value === 'string' && GRADING_ID_PATTERN.test(value);
}

/**
 * ulid's own Node generator draws one `crypto.randomBytes(1)` per character (16 calls per id, a few percent of a
 * registration's CPU); this one takes the same bytes (crypto-strength, each byte / 0xff as ulid does) from a
 * pool refilled 4 KiB at a time.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomByteFraction(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] / 0xff;
}

const nextUlid = monotonicFactory(randomByteFraction);

/** A new diamond id: a lowercased ULID (26 characters, sortable by creation time). */
export function newDiamondId(): string {
  return nextUlid().toLowerCase();
}

/** A new version id (lowercased ULID); a record gets a fresh one on every update. */
export function newVersionId(): string {
  return nextUlid().toLowerCase();
}

/**
 * A new participant event's id (its CloudEvent `id` on the feed and in webhook deliveries): a UUIDv7 (RFC 9562, the
 * `uuid` package), ordered by creation time. Events are kept for 30 days under a unique index on this id: random ids
 * (v4) land on any page of it, and the first change to each page after a checkpoint writes the whole page to the WAL;
 * ordered ids land on its last pages. Platform's delivery ids are made the same way in SQL (`dtp_uuid_v7()`).
 */
export function newEventId(): string {
  return uuidV7();
}

/**
 * A new diamond's legacy `id` (the spec's deprecated UUID, superseded by `diamond_id`): a UUIDv7, as `newEventId`'s.
 * Diamonds are kept for good under a unique index on it; random ids (v4, until 2026-12-07) put each new diamond's
 * entry on any page of that index, and after a checkpoint the first change to each page writes the whole page to the
 * WAL: on a grown table, 8 KiB more per registration, as much as the rest of it (`npm run bench -- event-ids`).
 */
export function newLegacyId(): string {
  return uuidV7();
}
