/**
 * Idempotency-Key (IETF draft "The Idempotency-Key HTTP Header Field"; DESIGN.md): the header's name and rules,
 * and the answers of platform and gis when a key cannot be honoured. Contracts for clients (the SDK, the CLI).
 */
import type { MessageErrorResponse } from '../records/errors';
import { ConflictError, InvalidError, invalidFields } from './index';

/** The request header. Optional on every state-changing POST and PATCH of platform and gis. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer that is the stored first answer of an earlier request with the same key. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';
/** The longest key accepted (characters). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a first answer is kept and replayed (24 hours). */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;

/** The 409 reason of a retry that arrives while the first request with its key is still running. */
export const IDEMPOTENCY_KEY_IN_USE = 'idempotency_key_in_use';

/** 409 body: `{message, reason: "idempotency_key_in_use"}`. */
export interface IdempotencyKeyInUseResponse extends MessageErrorResponse {
  reason: typeof IDEMPOTENCY_KEY_IN_USE;
}

/** The 422 `type` of a key that is empty, too long or not printable ASCII. */
export const IDEMPOTENCY_KEY_INVALID_TYPE = 'idempotency_key_invalid';
/** The 422 `type` of a key sent again with another request (method, path or body). */
export const IDEMPOTENCY_KEY_REUSED_TYPE = 'idempotency_key_reused';

const KEY_LOC = ['header', IDEMPOTENCY_KEY_HEADER];

/**
 * The key a header value carries, or why it is refused. The draft defines the value as a Structured Field string
 * (RFC 8941: `"..."`, with `\"` and `\\` escapes); a bare value (as most clients send) is taken as it is. Either way
 * the key is 1 to 255 printable ASCII characters (visible characters and space).
 */
export function parseIdempotencyKey(header: string): { key: string } | { problem: string } {
  let key = header.trim();
  if (key.startsWith('"')) {
    const m = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(key);
    if (!m) return { problem: 'Idempotency-Key is not a valid quoted string (RFC 8941 sf-string)' };
    key = m[1].replace(/\\(["\\])/g, '$1');
  }
  if (key.length === 0) return { problem: 'Idempotency-Key must not be empty' };
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return { problem: `Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` };
  if (!/^[\x20-\x7e]+$/.test(key)) return { problem: 'Idempotency-Key must be printable ASCII (characters 0x20 to 0x7E)' };
  return { key };
}

/** 422 `{detail: [{loc: ["header", "Idempotency-Key"], msg, type: "idempotency_key_invalid"}], message}`. */
export function idempotencyKeyInvalid(msg: string): InvalidError {
  return invalidFields([{ loc: KEY_LOC, msg, type: IDEMPOTENCY_KEY_INVALID_TYPE }]);
}

/** 422: the key was first used with another request; a new request needs a new key. */
export function idempotencyKeyReused(): InvalidError {
  return invalidFields([
    {
      loc: KEY_LOC,
      msg: 'this Idempotency-Key was used with a different request (method, path or body) in the last 24 hours; use a new key for a new request',
      type: IDEMPOTENCY_KEY_REUSED_TYPE,
    },
  ]);
}

/** 409 `{message, reason: "idempotency_key_in_use"}`: the first request with this key has not finished; retry later. */
export function idempotencyKeyInUse(): ConflictError {
  return new ConflictError(
    'a request with this Idempotency-Key is still being processed; retry after it has finished to get its answer',
    IDEMPOTENCY_KEY_IN_USE,
  );
}
