import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CustodyEntry } from './entry';

/** RFC 8785 (JCS) canonical JSON text of a JSON value (the `canonicalize` package, the RFC's reference code). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Hex SHA-256 of the JCS of a record (DiamondV1 after a change, or `{diamond_id}` for a deletion). */
export const recordSha256 = (record: unknown): string => hash('sha256', canonicalJson(record), 'hex');

/** Hex entry_hash: SHA-256 of the JCS canonical entry. */
export const entryHash = (entry: CustodyEntry): string => hash('sha256', canonicalJson(entry), 'hex');
