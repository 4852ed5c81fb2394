import { monotonicFactory } from 'ulid';

/** Platform diamond id (spec: lowercase letters and digits, length 20 to 98). */
export const DIAMOND_ID_PATTERN = /^[a-z0-9]{20,98}$/;

export function isDiamondId(value: unknown): value is string {
  return typeof value === 'string' && DIAMOND_ID_PATTERN.test(value);
}

const nextUlid = monotonicFactory();

/** A new diamond id: a lowercased ULID (26 characters, sortable by creation time). */
export function newDiamondId(): string {
  return nextUlid().toLowerCase();
}

/** A new version id (lowercased ULID); a record gets a fresh one on every update. */
export function newVersionId(): string {
  return nextUlid().toLowerCase();
}
