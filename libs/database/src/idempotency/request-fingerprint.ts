import { createHash, Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Busboy, BusboyFileStream, BusboyInstance } from '@fastify/busboy';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * JSON with every object's members in code-point order of their names and no whitespace: the same text for the
 * same JSON value however its members were ordered or spaced (numbers and strings as JSON.stringify writes them,
 * which is what RFC 8785 asks for values parsed from JSON).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const members = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${members.join(',')}}`;
}

/** What a parsed (non-multipart) body is, for the fingerprint: absent, raw bytes, or canonical JSON. */
export function bodyDigest(body: unknown): string {
  if (body === undefined || body === null) return 'none';
  if (typeof body === 'string' || Buffer.isBuffer(body)) return `raw:${sha256(body)}`;
  return `json:${sha256(canonicalJson(body))}`;
}

/** The request a key was first used with: method, path with query, and the body's digest. */
export function requestFingerprint(method: string, url: string, body: string): string {
  return sha256(JSON.stringify([method.toUpperCase(), url, body]));
}

export function isMultipart(headers: IncomingMessage['headers']): boolean {
  return /^multipart\//i.test(headers['content-type'] ?? '');
}

/**
 * The digest of a multipart body's parts, independent of the boundary and the transfer (a client that sends
 * the same form again picks a new boundary): for each part in order its field name and, for a file, its file
 * name, media type, size and SHA-256, for a field its value. Computed by a parser of its own on the same bytes
 * the handler's parser reads: `MultipartDigest.tap(raw)` listens in from the moment @fastify/multipart pipes the
 * request into its parser, so the upload still streams (nothing is buffered); `digest()` reads what nobody read
 * (the handler answered before reading the body, or it is not run at all) and resolves at the body's end. A body
 * the parser cannot read is digested as its raw bytes.
 */
export class MultipartDigest {
  private readonly raw: Hash = createHash('sha256');
  private readonly parts: (Promise<unknown[]> | unknown[])[] = [];
  private parser?: BusboyInstance;
  private parsed?: Promise<void>;
  private engaged = false;
  private result?: Promise<string>;

  private constructor(private readonly request: IncomingMessage) {
    try {
      const parser = new Busboy({ headers: request.headers as { 'content-type': string }, limits: { fieldSize: 1024 * 1024 } });
      this.parsed = new Promise<void>((resolve, reject) => {
        parser.on('finish', resolve);
        parser.on('error', reject);
      });
      this.parsed.catch(() => undefined);
      parser.on('field', (name: string, value: string, nameTruncated: boolean, valueTruncated: boolean) => {
        this.parts.push(['field', name, value, nameTruncated || valueTruncated]);
      });
      parser.on('file', (name: string, file: BusboyFileStream, filename: string | undefined, _encoding: string, type: string) => {
        const hash = createHash('sha256');
        let size = 0;
        this.parts.push(
          new Promise<unknown[]>((resolve, reject) => {
            file.on('data', (chunk: Buffer) => {
              size += chunk.length;
              hash.update(chunk);
            });
            file.on('end', () => resolve(['file', name, filename ?? null, type, size, hash.digest('hex')]));
            file.on('error', reject);
          }),
        );
      });
      this.parser = parser;
    } catch {
      // No or a malformed boundary: the raw bytes are the digest.
    }
  }

  /** Taps a multipart request (null for any other). Call before the handler runs. */
  static tap(request: IncomingMessage): MultipartDigest | null {
    if (!isMultipart(request.headers)) return null;
    const digest = new MultipartDigest(request);
    // @fastify/multipart reads the body with `request.pipe(busboy)`: listen in from that moment.
    const own = request as IncomingMessage & { pipe: IncomingMessage['pipe'] };
    own.pipe = function pipe<T extends NodeJS.WritableStream>(this: IncomingMessage, destination: T, options?: { end?: boolean }): T {
      delete (own as Partial<typeof own>).pipe;
      const piped = request.pipe(destination, options);
      digest.engage();
      return piped;
    };
    return digest;
  }

  /** The digest of the whole body; reads the rest of it if the handler did not. */
  digest(): Promise<string> {
    if (!this.engaged) {
      delete (this.request as Partial<IncomingMessage>).pipe;
      // Read by something that did not pipe it: the bytes are gone, and no digest can be made.
      if (this.request.readableEnded) return Promise.reject(new Error('the multipart body was read without the digest listening'));
      this.engage();
    }
    if (!this.request.readableEnded) this.request.resume();
    return this.result!;
  }

  private engage(): void {
    if (this.engaged) return;
    this.engaged = true;
    const request = this.request;
    this.result = new Promise<string>((resolve, reject) => {
      request.on('data', (chunk: Buffer) => {
        this.raw.update(chunk);
        if (this.parser?.writable) this.parser.write(chunk);
      });
      request.on('end', () => {
        this.parser?.end();
        resolve(this.finish());
      });
      request.on('error', reject);
      request.on('close', () => {
        if (!request.readableEnded) reject(new Error('the request body ended before it was complete'));
      });
    });
    this.result.catch(() => undefined);
  }

  private async finish(): Promise<string> {
    const raw = `raw:${this.raw.digest('hex')}`;
    if (!this.parsed) return raw;
    try {
      await this.parsed;
      return `multipart:${sha256(JSON.stringify(await Promise.all(this.parts)))}`;
    } catch {
      return raw;
    }
  }
}
