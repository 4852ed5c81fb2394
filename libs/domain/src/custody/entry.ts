import type { CustodyAction } from './actions';

/**
 * One custody log entry, exactly the object whose RFC 8785 (JCS) canonical JSON is hashed into `entry_hash`.
 * Field set fixed by DESIGN.md "Provenance"; the database's own sequence is not part of it (it skips on rollback,
 * and it is not known before the INSERT); the public order is the Merkle `leaf_index`.
 */
export interface CustodyEntry {
  diamond_id: string;
  /** The diamond's version after the change (the `version_id` of the DiamondV1 record); for `deleted`, a fresh ULID. */
  version_id: string;
  action: CustodyAction;
  /** The participant whose call made the change; null for `record_updated` (no participant's call). */
  actor_participant_id: string | null;
  /** ISO 8601 UTC with milliseconds: the record's `system_timestamp` after the change. */
  occurred_at: string;
  /** Hex SHA-256 of the JCS canonical JSON of the DiamondV1 after the change (for `deleted`: of `{"diamond_id": ...}`). */
  record_sha256: string;
  /** Hex entry_hash of the diamond's previous entry; for a child's first entry the parent's latest; null for a root. */
  prev_entry_hash: string | null;
  /**
   * Only on the `registered` entry of a diamond registered against an accepted shipment (`box_id` = the shipment
   * id): the sorted, distinct entry hashes of the latest entries of the shipment's diamonds at registration, so
   * the chain reaches the producer. ABSENT on every other entry (never null, never empty): entries written before
   * the member existed keep their hashes.
   */
  links?: string[];
}

/** Every entry an entry links to: its `prev_entry_hash` (when not null) and its `links`. */
export function linkedHashes(entry: CustodyEntry): string[] {
  return [...(entry.prev_entry_hash !== null ? [entry.prev_entry_hash] : []), ...(entry.links ?? [])];
}

/**
 * Exactly the hashed members of an entry, in DESIGN.md's order, from anything that has them (a stored row carries
 * more): `links` only when it is a non-empty list, so an entry without links hashes as it always did.
 */
export function entryMembers(e: Omit<CustodyEntry, 'links'> & { links?: string[] | null }): CustodyEntry {
  return {
    diamond_id: e.diamond_id,
    version_id: e.version_id,
    action: e.action,
    actor_participant_id: e.actor_participant_id,
    occurred_at: e.occurred_at,
    record_sha256: e.record_sha256,
    prev_entry_hash: e.prev_entry_hash,
    ...(Array.isArray(e.links) && e.links.length > 0 ? { links: e.links } : {}),
  };
}

/**
 * What platform knew of a change beyond the entry, for the EPCIS mapping (who the other party of a shipment was).
 * NOT covered by entry_hash: an annotation, never evidence. Absent members are unknown.
 */
export interface CustodyEntryContext {
  shipment_id?: string;
  /** shipped: the recipient; accepted/rejected: the sender. */
  counterparty_participant_id?: string;
}

/** A log entry with its position in the Merkle tree (leaf_index = tree size before it was appended). */
export interface IndexedCustodyEntry {
  entry: CustodyEntry;
  entry_hash: string;
  leaf_index: number;
  context?: CustodyEntryContext;
}

/** The signed tree head. `jws` is a JWS compact (EdDSA, `kid` in the header) whose payload is the JCS of the four fields. */
export interface CustodyCheckpoint {
  log_id: string;
  tree_size: number;
  /** Hex RFC 9162 MTH of the first tree_size leaves (for 0 leaves: SHA-256 of the empty string). */
  root_hash: string;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  jws: string;
}

/** The fields of a checkpoint that are signed (the JWS payload is their JCS). */
export type CustodyCheckpointBody = Omit<CustodyCheckpoint, 'jws'>;

/** An entry as search serves it: its inclusion proof against the answer's checkpoint. */
export interface ProvenCustodyEntry extends IndexedCustodyEntry {
  /** Hex hashes, RFC 9162 2.1.3.1 order. */
  inclusion_proof: string[];
}

/** `GET /v1/diamonds/{id}/custody`: the diamond's entries and the ancestor entries its chain links to, oldest first. */
export interface CustodyAnswer {
  checkpoint: CustodyCheckpoint;
  entries: ProvenCustodyEntry[];
}

/** `GET /v1/custody/consistency?from=N&to=M`. */
export interface ConsistencyAnswer {
  from: number;
  to: number;
  /** Hex hashes, RFC 9162 2.1.4.1. */
  proof: string[];
}
