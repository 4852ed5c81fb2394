import { CustodyAction, CustodyEntry, CustodyEntryContext, DiamondV1, entryHash, entryMembers, newVersionId, recordSha256 } from '@dtp/domain';
import { entityColumns } from '@dtp/database';
import { CustodyEntryEntity } from './custody.entity';

/** What a change records in the custody log besides the record: why (action), who (null: no participant's call). */
export interface CustodyChange {
  action: CustodyAction;
  actor: string | null;
  /** Not hashed: what platform knew of the change beyond the entry (the other party of a shipment). */
  context?: CustodyEntryContext;
  /**
   * Hashed, `registered` against a shipment only: the latest entries of the shipment's diamonds (sorted and made
   * distinct here; an empty list is no member at all).
   */
  links?: string[];
}

/** An entry about to be written, with its hash (the diamond's next `custody_head`). */
export interface NewCustodyEntry {
  entry: CustodyEntry;
  entry_hash: string;
  context: CustodyEntryContext | null;
}

/**
 * Exactly the hashed members of an entry, taken from anything that has them (a custody_entries row carries more:
 * seq, entry_hash, context, leaf_index). The one place that says which fields make the entry.
 */
export function entryFields(row: Omit<CustodyEntry, 'links'> & { links?: string[] | null }): CustodyEntry {
  return entryMembers(row);
}

function sealed(entry: CustodyEntry, context: CustodyEntryContext | undefined): NewCustodyEntry {
  return { entry, entry_hash: entryHash(entry), context: context && Object.keys(context).length > 0 ? context : null };
}

/**
 * The entry of a change whose result is `record` (exactly the DiamondV1 the `diamond.upserted` event carries):
 * its version, its system_timestamp as `occurred_at`, the SHA-256 of its JCS, linked to `prev` (the diamond's
 * custody_head as read with the locked row; for a new child the parent's entry made just before).
 */
export function custodyEntryOf(record: DiamondV1, change: CustodyChange, prev: string | null): NewCustodyEntry {
  return sealed(
    {
      diamond_id: record.diamond_id,
      version_id: record.version_id,
      action: change.action,
      actor_participant_id: change.actor,
      occurred_at: record.system_timestamp,
      record_sha256: recordSha256(record),
      prev_entry_hash: prev,
      ...(change.links && change.links.length > 0 ? { links: [...new Set(change.links)].sort() } : {}),
    },
    change.context,
  );
}

/** The `deleted` entry of a diamond: a fresh version id, the hash of `{"diamond_id": ...}`. */
export function deletionEntry(diamondId: string, actor: string, prev: string | null, at: Date): NewCustodyEntry {
  return sealed(
    {
      diamond_id: diamondId,
      version_id: newVersionId(),
      action: 'deleted',
      actor_participant_id: actor,
      occurred_at: at.toISOString(),
      record_sha256: recordSha256({ diamond_id: diamondId }),
      prev_entry_hash: prev,
    },
    undefined,
  );
}

/** The columns an insert writes, from the entity: all but `seq` (its sequence's) and `leaf_index` (the checkpointer's). */
const COLUMNS = entityColumns(CustodyEntryEntity)
  .map((c) => c.property)
  .filter((c) => c !== 'seq' && c !== 'leaf_index');

/**
 * The custody_entries INSERT for `entries` as SQL text plus its values, numbering parameters from `firstParam`,
 * so a caller folds it into the statement of the change (a data-modifying CTE: no extra round trip). `seq`
 * comes from its sequence; `leaf_index` stays NULL until the checkpointer puts the entry in the tree.
 */
export function custodyInsert(entries: NewCustodyEntry[], firstParam = 1): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  for (const e of entries) {
    // The entry's hashed members are its columns of the same names (entryFields: exactly those members).
    const fields = e.entry as unknown as Record<string, unknown>;
    for (const c of COLUMNS) {
      if (c === 'links') values.push(e.entry.links ?? null);
      else if (c === 'entry_hash') values.push(e.entry_hash);
      else if (c === 'context') values.push(e.context === null ? null : JSON.stringify(e.context));
      else values.push(fields[c]);
    }
  }
  return { sql: custodyInsertSql(entries.length, firstParam), values };
}

const insertTexts = new Map<string, string>();

/** The statement's text for `n` entries from parameter `firstParam` on; the few the hot path uses kept (bounded). */
function custodyInsertSql(n: number, firstParam: number): string {
  const key = `${n}:${firstParam}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    const rows = Array.from({ length: n }, (_, i) => {
      const o = firstParam - 1 + i * COLUMNS.length;
      return `(${COLUMNS.map((c, j) => `$${o + j + 1}${c === 'context' ? '::jsonb' : c === 'links' ? '::text[]' : ''}`).join(', ')})`;
    });
    text = `INSERT INTO custody_entries (${COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`;
    if (insertTexts.size < 256) insertTexts.set(key, text);
  }
  return text;
}
