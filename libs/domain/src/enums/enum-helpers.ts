/**
 * Every enumeration in this library is declared as a readonly tuple of its exact values (the single
 * source of truth, in the spec's order), plus a frozen lookup object keyed by the value itself and a
 * union type of the same name:
 *
 *   export const CLARITY_VALUES = ['FL', 'IF', ...] as const;
 *   export const Clarity = enumObject(CLARITY_VALUES);   // Clarity.FL === 'FL', Symmetry['VG-EX']
 *   export type Clarity = (typeof CLARITY_VALUES)[number];
 *
 * Keying by value keeps the object honest for values that are not identifiers ("VG-EX",
 * "Extremely Thick", "Cushion Modified Brilliant").
 */
export type EnumObject<V extends string> = { readonly [K in V]: K };

export function enumObject<const V extends string>(values: readonly V[]): EnumObject<V> {
  const out: Record<string, string> = {};
  for (const v of values) out[v] = v;
  return Object.freeze(out) as EnumObject<V>;
}

/** Type guard factory: `isOneOf(CLARITY_VALUES, x)`. */
export function isOneOf<V extends string>(values: readonly V[], value: unknown): value is V {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}
