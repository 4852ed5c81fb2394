import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { CustodyEntry } from './entry';

/** Thrown inside `written` where only the reference can say what it writes (see `canonicalJson`). */
class ReferenceOnly extends Error {}
const REFERENCE_ONLY = new ReferenceOnly();

/** An object's member names as Object.keys gave them, their order in JCS (UTF-16 code units), each written `"name":`. */
interface Shape {
  names: string[];
  order: number[];
  written: string[];
}

/** Shapes seen, by first member name; at most MAX_SHAPES in all (free-form members have any names). */
const shapes = new Map<string, Shape[]>();
const MAX_SHAPES = 256;
const MAX_SHAPES_PER_FIRST_NAME = 8;
let shapeCount = 0;

const byCodeUnits = (names: string[]) => (a: number, b: number) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0);

function shapeOf(names: string[]): Shape {
  const first = names.length === 0 ? '' : names[0];
  const known = shapes.get(first);
  if (known !== undefined) {
    for (const shape of known) {
      if (shape.names.length !== names.length) continue;
      let same = true;
      for (let i = 1; i < names.length && same; i++) same = shape.names[i] === names[i];
      if (same) return shape;
    }
  }
  const order = names.map((_, i) => i).sort(byCodeUnits(names));
  const shape = { names, order, written: order.map((i) => `${JSON.stringify(names[i])}:`) };
  if (shapeCount < MAX_SHAPES && (known?.length ?? 0) < MAX_SHAPES_PER_FIRST_NAME) {
    if (known === undefined) shapes.set(first, [shape]);
    else known.push(shape);
    shapeCount += 1;
  }
  return shape;
}

/**
 * The JCS text of a JSON value, written member by member in UTF-16 code-unit order of the names; throws
 * REFERENCE_ONLY where the reference writes something a JSON value would not give (an object with `toJSON`, an array
 * with holes, a function, a bigint, a non-finite number: the reference throws for some, writes its own text for
 * others).
 */
function written(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // Number::toString, as JSON.stringify (and so the reference) writes it.
      if (!Number.isFinite(value)) throw REFERENCE_ONLY;
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) {
          // A hole is skipped by the reference (no null, and no comma before the first item).
          if (!(i in value)) throw REFERENCE_ONLY;
          const item: unknown = value[i];
          if (i > 0) text += ',';
          // undefined and symbols are written as null by the reference.
          text += item === undefined || typeof item === 'symbol' ? 'null' : written(item);
        }
        return `${text}]`;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') throw REFERENCE_ONLY;
      const shape = shapeOf(Object.keys(value));
      let text = '{';
      let first = true;
      for (let j = 0; j < shape.order.length; j++) {
        const member = (value as Record<string, unknown>)[shape.names[shape.order[j]]];
        // undefined and symbols are left out by the reference.
        if (member === undefined || typeof member === 'symbol') continue;
        if (!first) text += ',';
        first = false;
        text += shape.written[j] + written(member);
      }
      return `${text}}`;
    }
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      throw REFERENCE_ONLY;
  }
}

/**
 * RFC 8785 (JCS) canonical JSON text of a JSON value: exactly what the `canonicalize` package (the RFC's reference
 * code, which the independent verifier in libs/verify uses) writes. Written here member by member in UTF-16 code-unit
 * order of the names, numbers and strings by JSON.stringify as in the reference, each object shape's order sorted once
 * (the record and the entry of every change have the same few shapes); the reference sorts the names of every object
 * and concatenates a string per member, recursively, a measurable part of a registration's CPU and garbage (two texts
 * per change: the record and the entry). Values outside JSON are written by the reference itself.
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = written(value);
  } catch (err) {
    if (err !== REFERENCE_ONLY) throw err;
    text = canonicalize(value);
  }
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** Hex SHA-256 of the JCS of a record (DiamondV1 after a change, or `{diamond_id}` for a deletion). */
export const recordSha256 = (record: unknown): string => hash('sha256', canonicalJson(record), 'hex');

/** Hex entry_hash: SHA-256 of the JCS canonical entry. */
export const entryHash = (entry: CustodyEntry): string => hash('sha256', canonicalJson(entry), 'hex');
