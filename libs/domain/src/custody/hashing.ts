import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CustodyEntry } from './entry';

/** Not sortable by a copy: the reference writes it (see `canonicalJson`). */
const REFERENCE = Symbol('reference');

/** A name V8 enumerates before every other member, in numeric order, whatever order it was added in. */
const isArrayIndex = (name: string): boolean => {
  const first = name.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  const n = Number(name);
  return n < 4294967295 && String(n) === name;
};

/**
 * `value` with every object's members added in code-point order of their names, for JSON.stringify to write; or
 * REFERENCE where a copy cannot say what the reference would: a member named like an array index (enumerated
 * first whatever its order) or `__proto__`, an object with `toJSON` (a Date), an array with holes, a function, a
 * bigint, a non-finite number (the reference throws).
 */
function sortedCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : REFERENCE;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const copy = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          // A hole is skipped by the reference (no null, and no comma before the first item).
          if (!(i in value)) return REFERENCE;
          const item: unknown = value[i];
          // undefined and symbols are written as null by both.
          const sorted = item === undefined || typeof item === 'symbol' ? null : sortedCopy(item);
          if (sorted === REFERENCE) return REFERENCE;
          copy[i] = sorted;
        }
        return copy;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return REFERENCE;
      const names = Object.keys(value).sort();
      const copy: Record<string, unknown> = {};
      for (const name of names) {
        const member = (value as Record<string, unknown>)[name];
        // undefined and symbols are left out by both.
        if (member === undefined || typeof member === 'symbol') continue;
        // `__proto__` set on a copy would be its prototype, not a member.
        if (isArrayIndex(name) || name === '__proto__') return REFERENCE;
        const sorted = sortedCopy(member);
        if (sorted === REFERENCE) return REFERENCE;
        copy[name] = sorted;
      }
      return copy;
    }
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return REFERENCE;
  }
}

/**
 * RFC 8785 (JCS) canonical JSON text of a JSON value: exactly what the `canonicalize` package (the RFC's reference
 * code, which the independent verifier in libs/verify uses) writes. For a JSON value it is JSON.stringify of a copy
 * whose objects have their members in code-point order (numbers and strings are written by JSON.stringify in both),
 * which V8 writes natively; the reference builds the text by concatenating a string per member, recursively, a
 * measurable part of a registration's CPU and garbage (two texts per change: the record and the entry). Values a
 * sorted copy cannot stand for are written by the reference itself.
 */
export function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value);
  const text = sorted === REFERENCE ? canonicalize(value) : JSON.stringify(sorted);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Hex SHA-256 of the JCS of a record (DiamondV1 after a change, or `{diamond_id}` for a deletion). */
export const recordSha256 = (record: unknown): string => hash('sha256', canonicalJson(record), 'hex');

/** Hex entry_hash: SHA-256 of the JCS canonical entry. */
export const entryHash = (entry: CustodyEntry): string => hash('sha256', canonicalJson(entry), 'hex');
