/**
 * Hostile values for a path segment that names something by id, already percent-encoded for a URL. Each must be
 * refused before it reaches the database: the route's 404 for an unknown id (DESIGN.md "Input bounds"), or a
 * 400 from the HTTP layer when the segment is not even valid percent-encoded UTF-8; never a 5xx, always JSON.
 */
export const HOSTILE_PATH_SEGMENTS: readonly (readonly [name: string, segment: string])[] = [
  ['NUL', '%00abc'],
  ['NUL inside a well-formed id', `${'a'.repeat(13)}%00${'a'.repeat(12)}`],
  ['control characters', '%01%02%1B%7F'],
  ['newline (header or log injection)', 'abc%0D%0ASet-Cookie:%20x=1'],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['backslash traversal', '..%5C..%5Cwindows'],
  ['single quote (SQL)', "x'%20OR%20'1'='1"],
  ['double quote', '%22%3Cscript%3E'],
  ['over-long', 'a'.repeat(4096)],
  ['over-long in the id alphabet', '0'.repeat(99)],
  ['upper case', '01HZZZZZZZZZZZZZZZZZZZZZZZ'],
  ['lone surrogate (invalid UTF-8)', '%ED%A0%80abc'],
  ['emoji', '%F0%9F%92%8E'],
  ['percent literal', '%25'],
  ['spaces', '%20%20'],
  ['JSON', '%7B%22%24ne%22%3A1%7D'],
];

/** A well-formed id nobody has (the diamond/shipment id alphabet). */
export const UNKNOWN_ID = '01hzzzzzzzzzzzzzzzzzzzzzzz';
/** A well-formed UUID nobody has. */
export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
/** A well-formed SHA-256 hex nobody has. */
export const UNKNOWN_HASH = 'f'.repeat(64);

/**
 * What a hostile path segment may get: the route's own 404 body; or, from the HTTP layer before any route runs, a
 * JSON 400 for bytes that are not valid percent-encoded UTF-8 or a JSON 414 for a segment past the router's
 * parameter length (100 characters, well above every id format). Returns what is wrong (shortened), or null.
 */
export function refusedPathAnswer(res: { status: number; body: unknown }, notFoundBody: Record<string, unknown>): string | null {
  const body = JSON.stringify(res.body) ?? String(res.body);
  if (res.status === 404) return body === JSON.stringify(notFoundBody) ? null : `404 with ${body.slice(0, 200)}`;
  if ((res.status === 400 || res.status === 414) && typeof res.body === 'object' && res.body !== null) return null;
  return `${res.status} with ${body.slice(0, 200)}`;
}
