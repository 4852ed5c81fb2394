import type { Readable } from 'node:stream';

/**
 * A content-addressed store of file bytes (DESIGN.md "Services"): every blob is keyed by the lowercase hex
 * SHA-256 of its bytes, so the same bytes are stored once and a key never changes meaning. Platform writes it;
 * search and GIS only read it. Implementations: a directory on disk (FilesystemBlobStore); an S3-compatible
 * bucket later. Every implementation must pass the contract suite in libs/blob-store/test/contract.ts.
 */
export interface BlobStore {
  /**
   * Streams `source` into the store, computing the SHA-256 on the fly (never buffering the whole content).
   * Rejects with BlobTooLargeError past `maxBytes` and with the source's error if it fails; either way nothing
   * is stored.
   */
  put(source: BlobSource, opts?: BlobPutOptions): Promise<BlobPutResult>;
  /** The bytes of a blob, or null when the store does not hold `hash` (or `hash` is not a SHA-256 hex key). */
  get(hash: string): Promise<BlobContent | null>;
  stat(hash: string): Promise<BlobStat | null>;
  has(hash: string): Promise<boolean>;
}

export type BlobSource = Readable | AsyncIterable<Uint8Array>;

export interface BlobPutOptions {
  /** Refuse content longer than this many bytes. */
  maxBytes?: number;
  /**
   * The media type the uploader gave, kept with the blob when this put creates it (the first upload of some
   * bytes names their type; later puts of the same bytes change nothing). Ignored unless it is a well-formed
   * media type (`isMediaType`).
   */
  contentType?: string | null;
}

export interface BlobPutResult {
  /** Lowercase hex SHA-256 of the bytes: the key. */
  hash: string;
  size: number;
  /** False when the store already held these bytes (nothing new was written). */
  created: boolean;
}

export interface BlobStat {
  size: number;
}

export interface BlobContent extends BlobStat {
  stream: Readable;
  /** The media type given when the blob was created, or null when none was given. */
  contentType: string | null;
}

/** `type/subtype` with optional parameters, in RFC 9110 token characters only (nothing that could break a header). */
const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]{1,127}\/[a-z0-9!#$&^_.+-]{1,127}(\s*;\s*[a-z0-9!#$&^_.+-]+=("[\x20\x21\x23-\x5b\x5d-\x7e]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** True for a media type that is safe to store and to send back in a Content-Type header. */
export function isMediaType(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && MEDIA_TYPE.test(value);
}

/** Content longer than the caller's limit. */
export class BlobTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`content exceeds the limit of ${limitBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

export const BLOB_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** True for a well-formed key (64 lowercase hex characters). Anything else is never looked up. */
export function isBlobHash(value: unknown): value is string {
  return typeof value === 'string' && BLOB_HASH_PATTERN.test(value);
}
