import { HttpException, HttpStatus, InternalServerErrorException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { BlobStore, BlobTooLargeError, isMediaType } from '@dtp/blob-store';
import { RequestValidationException } from '@dtp/service-kit';

/** A file received into the blob store, with the form's text fields. */
export interface ReceivedUpload {
  hash: string;
  size: number;
  filename: string | null;
  contentType: string | null;
  fields: Record<string, string>;
}

export function fileTooLarge(limit: number): HttpException {
  return new HttpException({ message: `file is larger than the limit of ${limit} bytes`, reason: 'file_too_large', limit_bytes: limit }, HttpStatus.PAYLOAD_TOO_LARGE);
}

/**
 * An error answered before the request body was read to its end: the rest of the upload is not worth reading,
 * so the response closes the connection (a client must not send its next request behind unread bytes).
 */
function closingConnection(err: unknown): unknown {
  if (err instanceof HttpException) {
    const withHeaders = err as HttpException & { headers?: Record<string, string> };
    withHeaders.headers = { ...(withHeaders.headers ?? {}), connection: 'close' };
  }
  return err;
}

const invalid = (field: string, msg: string, type: string) => new RequestValidationException([{ loc: ['body', field], msg, type }]);

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
    throw new RequestValidationException([{ loc: ['body'], msg: 'the body must be multipart/form-data with a "file" part', type: 'content_type' }]);
  }
  const fields: Record<string, string> = {};
  let stored: Omit<ReceivedUpload, 'fields'> | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw invalid(part.fieldname, 'extra fields not permitted (the file goes in "file")', 'extra_forbidden');
        }
        const stream = part.file;
        stream.once('limit', () => stream.destroy(new BlobTooLargeError(opts.limitBytes)));
        // The part's media type, when well formed: kept in the file ref (where its kind has one) and with the
        // blob, so search serves every kind with the type it was uploaded with.
        const contentType = isMediaType(part.mimetype) ? part.mimetype : null;
        const put = await blobs.put(stream, { maxBytes: opts.limitBytes, contentType });
        if (stream.truncated) throw new BlobTooLargeError(opts.limitBytes);
        stored = { hash: put.hash, size: put.size, filename: baseName(part.filename), contentType };
      } else {
        if (!opts.fields.includes(part.fieldname)) throw invalid(part.fieldname, 'extra fields not permitted', 'extra_forbidden');
        if (part.fieldname in fields) throw invalid(part.fieldname, `${part.fieldname} must be given once`, 'too_long');
        if (part.valueTruncated) throw invalid(part.fieldname, `${part.fieldname} is too long`, 'string_too_long');
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    throw closingConnection(translate(err, opts.limitBytes));
  }
  if (!stored) throw invalid('file', 'Field required', 'missing');
  return { ...stored, fields };
}

function translate(err: unknown, limitBytes: number): unknown {
  if (err instanceof BlobTooLargeError) return fileTooLarge(limitBytes);
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(limitBytes);
  if (code === 'FST_FILES_LIMIT') return invalid('file', 'exactly one file may be sent per request', 'too_long');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new RequestValidationException([{ loc: ['body'], msg: 'too many form fields', type: 'too_long' }]);
  }
  if (err instanceof HttpException) return err;
  // The store failed (disk, permissions, object store away): a 500 that says what failed, logged with its cause.
  return new InternalServerErrorException(
    { message: 'the file could not be stored; contact the platform administrators if it persists' },
    { cause: err },
  );
}
