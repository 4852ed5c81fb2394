import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { newIdempotencyKey, PlatformSchema, SearchSchema, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo, printJson, printTable } from '../io';

type Polished = SearchSchema<'DiamondV1Polished'>;

interface Common {
  profile?: string;
  json: boolean;
}

/** `dtp diamonds get <id>`: the record from search (a non-participant's credentials). */
export async function diamondsGet(io: CliIo, id: string, opts: Common): Promise<ExitCode> {
  const dtp = clientFor(io, opts.profile, 'search');
  const r = await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}', { params: { path: { diamond_id: id } } }));
  if (opts.json) printJson(io, r);
  else {
    printTable(
      io,
      ['field', 'value'],
      [
        ['diamond_id', r.diamond_id],
        ['lifecycle_state', r.lifecycle_state],
        ['possession_state', r.possession_state],
        ['unlock_status', r.unlock_status],
        ['participant_id', str(r.participant_id)],
        ['box_id', str(r.box_id)],
        ['diamond_parent_id', str(r.diamond_parent_id)],
        ['rough.carats', str(r.rough?.carats)],
        ['polished.carats', str(r.polished?.carats)],
        ['polished.shape', str(r.polished?.shape)],
        ['provenance', str(r.provenance?.provenance_name)],
      ],
    );
  }
  return EXIT.ok;
}

/** `dtp diamonds history <id>`: the ancestors, nearest first. */
export async function diamondsHistory(io: CliIo, id: string, opts: Common): Promise<ExitCode> {
  const dtp = clientFor(io, opts.profile, 'search');
  const h = await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}/history', { params: { path: { diamond_id: id } } }));
  if (opts.json) printJson(io, h);
  else if (h.ancestors.length === 0) io.out(`${id} has no ancestors\n`);
  else
    printTable(
      io,
      ['diamond_id', 'lifecycle_state', 'box_id', 'participant_id'],
      h.ancestors.map((a) => [a.diamond_id, a.lifecycle_state, str(a.box_id), str(a.participant_id)]),
    );
  return EXIT.ok;
}

const FILE_LISTS = ['images', 'videos', 'scan_reports', 'supplementary_files', 'grading_certificates'] as const;

/**
 * `dtp diamonds files <id>`: the files attached to the diamond (kind, hash, name, size); with `--download <hash>`
 * the bytes of one, to `--output` (default: its file name, or the hash).
 */
export async function diamondsFiles(io: CliIo, id: string, opts: Common & { download?: string; output?: string }): Promise<ExitCode> {
  if (opts.output && !opts.download) throw new UsageError('--output goes with --download <hash>');
  if (opts.download && !/^[0-9a-f]{64}$/.test(opts.download)) throw new UsageError('--download takes a file hash: 64 lowercase hex characters');
  const dtp = clientFor(io, opts.profile, 'search');
  const d = await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}', { params: { path: { diamond_id: id } } }));
  const polished: Polished = d.polished ?? {};
  const files: { kind: string; hash: string; filename: string | null; size: number | null }[] = [];
  const add = (kind: string, ref: { hash: string; filename?: string | null; size?: number | null }) =>
    files.push({ kind, hash: ref.hash, filename: ref.filename ?? null, size: ref.size ?? null });
  for (const list of FILE_LISTS) for (const ref of polished[list] ?? []) add(list.replace(/s$/, ''), ref);
  if (polished.scan) add('scan', polished.scan);

  if (opts.download) {
    const known = files.find((f) => f.hash === opts.download);
    const target = path.resolve(io.cwd, opts.output ?? (known?.filename ? path.basename(known.filename) : opts.download));
    const answer = await dtp.search.GET('/v1/diamonds/{diamond_id}/files/{file_hash}', {
      params: { path: { diamond_id: id, file_hash: opts.download } },
      parseAs: 'stream',
    });
    const body = await unwrap(answer);
    if (!body) throw new Error('the file answer had no body');
    // The DOM and node:stream/web declarations of ReadableStream differ in TypeScript only.
    await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), createWriteStream(target));
    if (opts.json) printJson(io, { diamond_id: id, hash: opts.download, output: target });
    else io.err(`wrote ${target}\n`);
    return EXIT.ok;
  }
  if (opts.json) printJson(io, { diamond_id: id, files });
  else if (files.length === 0) io.out(`${id} has no files\n`);
  else
    printTable(
      io,
      ['kind', 'hash', 'filename', 'size'],
      files.map((f) => [f.kind, f.hash, f.filename, f.size]),
    );
  return EXIT.ok;
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

type FileKind = PlatformSchema<'FileKind'>;

/** Media types by file extension, for the upload's part (anything else: application/octet-stream). */
const MEDIA_TYPES: Record<string, string> = {
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain',
};

/**
 * `dtp diamonds attach <id> <file> --kind <kind>`: uploads a file to a diamond the caller holds (the platform's
 * `POST /diamonds/{diamond_id}/files/{kind}`, a holder's credentials). A polished diamond needs a `scan_report`
 * before a grading lab can `dtp gis verify` or `validate` it (409 diamond_has_no_scan_report until then).
 */
export async function diamondsAttach(
  io: CliIo,
  id: string,
  file: string,
  opts: Common & { kind: FileKind; description?: string; imageType?: string },
): Promise<ExitCode> {
  const source = path.resolve(io.cwd, file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const dtp = clientFor(io, opts.profile, 'platform');
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array(bytes)], { type: MEDIA_TYPES[path.extname(source).toLowerCase()] ?? 'application/octet-stream' }),
    path.basename(source),
  );
  if (opts.description !== undefined) form.append('description', opts.description);
  if (opts.imageType !== undefined) form.append('image_type', opts.imageType);
  const ref = await unwrap(
    dtp.platform.POST('/diamonds/{diamond_id}/files/{kind}', {
      params: { path: { diamond_id: id, kind: opts.kind } },
      body: form as never, // multipart: sent as the FormData it is
      bodySerializer: (body: unknown) => body as FormData,
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
  if (opts.json) printJson(io, ref);
  else io.out(`attached ${path.basename(source)} to ${id} as ${opts.kind}: sha256 ${ref.hash}\n`);
  return EXIT.ok;
}
