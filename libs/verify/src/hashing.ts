import canonicalize from 'canonicalize';

/**
 * Hashing on WebCrypto (`globalThis.crypto.subtle`), so the same code runs in a browser and in Node 20+. Browsers
 * offer `crypto.subtle` only in secure contexts (https, or http://localhost).
 */
function subtle(): typeof globalThis.crypto.subtle {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('WebCrypto (crypto.subtle) is not available here: a browser needs https (or localhost), Node needs version 20 or later');
  return s;
}

const encoder = new TextEncoder();

/** RFC 8785 (JCS) canonical JSON text of a JSON value (the `canonicalize` package, the RFC's reference code). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** SHA-256 of the concatenated parts. */
export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const joined = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await subtle().digest('SHA-256', joined));
}

/** Lower-case hex SHA-256 of a text (its UTF-8 bytes) or of bytes. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return toHex(await sha256(typeof data === 'string' ? encoder.encode(data) : data));
}

export const HEX64 = /^[0-9a-f]{64}$/;

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** The 32 bytes of a lower-case hex SHA-256 (throws a TypeError for anything else). */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !HEX64.test(hex)) throw new TypeError(`not a lower-case hex SHA-256: ${JSON.stringify(hex)?.slice(0, 80)}`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
