import { InternalServerErrorException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { BlobStore, BlobTooLargeError, isMediaType } from '@dtp/blob-store';
import { DESCRIPTION_MAX_LENGTH, DomainError, EXTRA_FIELD_MSG, ID_MAX_LENGTH, invalidFields, InvalidError, textProblem, TooLargeError } from '@dtp/domain';

/** A file received into the blob store, with the form's text fields. */
export interface ReceivedUpload {
  hash: string;
  size: number;
  filename: string | null;
  contentType: string | null;
  fields: Record<string, string>;
}

export function fileTooLarge(limit: number): TooLargeError {
  return new TooLargeError(`file is larger than the limit of ${limit} bytes`, { reason: 'file_too_large', limit_bytes: limit });
}

/**
 * The header of an answer given before the request body was read to its end: the rest of the upload is not worth
 * reading, so the response closes the connection (a client must not send its next request behind unread bytes).
 */
const CLOSE_CONNECTION = { connection: 'close' } as const;

/** The same domain error, answered with `Connection: close` (the error that stopped the reading is its cause). */
function closingConnection(err: unknown): unknown {
  if (!(err instanceof DomainError)) return err;
  return new DomainError(err.kind, err.body, {
    retryAfterSeconds: err.retryAfterSeconds,
    challenge: err.challenge,
    headers: { ...(err.headers ?? {}), ...CLOSE_CONNECTION },
    cause: err,
  });
}

const invalid = (field: string, msg: string, type: string): InvalidError => invalidFields([{ loc: ['body', field], msg, type }]);

/** The longest value of each text field (DESIGN.md "Input bounds"); anything else is an id-sized text. */
const FIELD_MAX_LENGTH: Readonly<Record<string, number>> = { description: DESCRIPTION_MAX_LENGTH };

/** Why a text field or file name is refused (too long, NUL, lone surrogates, control characters), or null. */
function textFieldProblem(value: string, max: number, multiline: boolean): string | null {
  if (value.length > max) return `must be at most ${max} characters`;
  const problem = textProblem(value);
  if (problem) return problem;
  const controls = multiline ? /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/ : /[\u0001-\u001f\u007f]/;
  return controls.test(value) ? 'must not contain control characters' : null;
}

/** Only the last path segment of a client-supplied file name (browsers send a name; some clients a path). */
function baseName(name: string | undefined): string | null {
  if (!name) return null;
  const last = name.split(/[\\/]/).pop() ?? '';
  return last === '' ? null : last;
}

/**
 * Streams a multipart form's `file` part into the blob store (SHA-256 computed on the way, never buffered in
 * memory; the fileSize limit of @fastify/multipart aborts the stream and the store removes its temp file) and
 * collects the allowed text fields. Field order in the form does not matter.
 */
export async function receiveUpload(req: FastifyRequest, blobs: BlobStore, opts: { limitBytes: number; fields: readonly string[] }): Promise<ReceivedUpload> {
  if (!req.isMultipart()) {
    throw invalidFields([{ loc: ['body'], msg: 'the body must be multipart/form-data with a "file" part', type: 'content_type' }]);
  }
  const fields: Record<string, string> = {};
  let stored: Omit<ReceivedUpload, 'fields'> | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw invalid(part.fieldname, `${EXTRA_FIELD_MSG} (the file goes in "file")`, 'extra_forbidden');
        }
        const filename = baseName(part.filename);
        const badName = filename === null ? null : textFieldProblem(filename, ID_MAX_LENGTH, false);
        if (badName) {
          part.file.resume();
          throw invalid('file', `the file name ${badName}`, 'value_error.filename');
        }
        const stream = part.file;
        stream.once('limit', () => stream.destroy(new BlobTooLargeError(opts.limitBytes)));
        // The part's media type, when well formed: kept in the file ref (where its kind has one) and with the
        // blob, so search serves every kind with the type it was uploaded with.
        const contentType = isMediaType(part.mimetype) ? part.mimetype : null;
        const put = await blobs.put(stream, { maxBytes: opts.limitBytes, contentType }).catch((err: unknown) => {
          // The part's own stream failed (the client's body: truncated, malformed, too large): the client's fault.
          // Otherwise the store failed.
          throw stream.errored ? err : new StoreFailure(err);
        });
        if (stream.truncated) throw new BlobTooLargeError(opts.limitBytes);
        stored = { hash: put.hash, size: put.size, filename, contentType };
      } else {
        if (!opts.fields.includes(part.fieldname)) throw invalid(part.fieldname, EXTRA_FIELD_MSG, 'extra_forbidden');
        if (part.fieldname in fields) throw invalid(part.fieldname, `${part.fieldname} must be given once`, 'too_long');
        if (part.valueTruncated) throw invalid(part.fieldname, `${part.fieldname} is too long`, 'string_too_long');
        const value = String(part.value);
        const max = FIELD_MAX_LENGTH[part.fieldname] ?? ID_MAX_LENGTH;
        const problem = textFieldProblem(value, max, part.fieldname === 'description');
        if (problem) throw invalid(part.fieldname, `${part.fieldname} ${problem}`, value.length > max ? 'string_too_long' : 'value_error.text');
        fields[part.fieldname] = value;
      }
    }
  } catch (err) {
    throw closingConnection(translate(err, opts.limitBytes));
  }
  if (!stored) throw invalid('file', 'Field required', 'missing');
  return { ...stored, fields };
}

/** The blob store failed while the client's bytes were fine (disk, permissions, object store away). */
class StoreFailure extends Error {
  constructor(cause: unknown) {
    super('the blob store failed', { cause });
  }
}

/**
 * The 500 of a failed store: not a domain error but a fault of this service, so the kit's filter logs its cause
 * and adds the request id; it says what failed, and closes the connection like every answer given mid-upload
 * (the kit's filter sends an HttpException's `headers`).
 */
class StoreFailedException extends InternalServerErrorException {
  readonly headers: Record<string, string> = { ...CLOSE_CONNECTION };

  constructor(cause: unknown) {
    super({ message: 'the file could not be stored; contact the platform administrators if it persists' }, { cause });
  }
}

function translate(err: unknown, limitBytes: number): unknown {
  if (err instanceof BlobTooLargeError) return fileTooLarge(limitBytes);
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(limitBytes);
  if (code === 'FST_FILES_LIMIT') return invalid('file', 'exactly one file may be sent per request', 'too_long');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalidFields([{ loc: ['body'], msg: 'too many form fields', type: 'too_long' }]);
  }
  if (code === 'FST_PROTO_VIOLATION') {
    return invalidFields([{ loc: ['body'], msg: 'field names __proto__, constructor and prototype are not allowed', type: 'extra_forbidden' }]);
  }
  if (err instanceof DomainError) return err;
  if (err instanceof StoreFailure) return new StoreFailedException(err.cause);
  // Anything else came from parsing the client's body (no or another boundary, truncated, malformed part headers).
  const reason = err instanceof Error ? err.message.replace(/[^\x20-\x7e]/g, '?').slice(0, 200) : 'unreadable body';
  return invalidFields([{ loc: ['body'], msg: `the body is not valid multipart/form-data with a "file" part (${reason})`, type: 'multipart_parsing' }]);
}
