/**
 * Many JSON texts as ONE parameter, for statements that write a row per text (`unnest` of several arrays).
 *
 * A `json[]` or `jsonb[]` parameter makes the `pg` driver write an array literal: every element quoted, each of its
 * quotes and backslashes escaped by two regular-expression replaces, so a text of a kilobyte is copied twice more
 * and grows by its escapes: 7 % of the bytes a registration allocated (a record of about 1.2 kB per event). Measured
 * alone that is about 5 us of the driver's CPU per event; the platform benchmark used 7 to 14 % less CPU per
 * registration without it (docs/platform.md, "Performance"). The texts are JSON already: joined into one JSON array
 * they need no escaping at all, and `jsonElements` takes them apart again in PostgreSQL, in order.
 */

/** `texts` (JSON texts; null for SQL NULL) as the text of one JSON array, nothing escaped. */
export function jsonArrayText(texts: readonly (string | null)[]): string {
  let out = '[';
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) out += ',';
    out += texts[i] ?? 'null';
  }
  return `${out}]`;
}

/**
 * SQL for the array of the elements of the JSON array in parameter `param` (e.g. `$5`), in their order, as `type`:
 * the counterpart of a `$5::json[]` (or `jsonb[]`) parameter, for `unnest(...)`. A JSON `null` element gives SQL
 * NULL (jsonArrayText writes SQL NULL so). With `json`, each element's text is kept as it was sent (key order and
 * all).
 */
export function jsonElements(param: string, type: 'json' | 'jsonb'): string {
  const element = type === 'json' ? `CASE WHEN json_typeof(x) = 'null' THEN NULL ELSE x END` : `NULLIF(x, 'null'::jsonb)`;
  return `ARRAY(SELECT ${element} FROM ${type}_array_elements(${param}::${type}) WITH ORDINALITY AS a(x, i) ORDER BY i)`;
}
