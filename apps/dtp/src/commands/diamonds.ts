import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Search, SuccessBody, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo, printJson, printTable } from '../io';

type Diamond = SuccessBody<Search.paths, '/v1/diamonds/{diamond_id}', 'get'>;
type History = SuccessBody<Search.paths, '/v1/diamonds/{diamond_id}/history', 'get'>;

interface Common {
  profile?: string;
  json: boolean;
}

/** `dtp diamonds get <id>`: the record from search (a non-participant's credentials). */
export async function diamondsGet(io: CliIo, id: string, opts: Common): Promise<ExitCode> {
  const dtp = clientFor(io, opts.profile, 'search');
  const d = (await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}', { params: { path: { diamond_id: id } } }))) as Diamond;
  if (opts.json) printJson(io, d);
  else {
    const r = d as unknown as Record<string, unknown> & { rough?: { carats?: unknown }; polished?: { carats?: unknown; shape?: unknown }; provenance?: { provenance_name?: unknown } };
    printTable(
      io,
      ['field', 'value'],
      [
        ['diamond_id', String(r.diamond_id)],
        ['lifecycle_state', String(r.lifecycle_state)],
        ['possession_state', String(r.possession_state)],
        ['unlock_status', String(r.unlock_status)],
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
  const h = (await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}/history', { params: { path: { diamond_id: id } } }))) as History;
  if (opts.json) printJson(io, h);
  else {
    const ancestors = ((h as unknown as { ancestors?: Record<string, unknown>[] }).ancestors ?? []) as Record<string, unknown>[];
    if (ancestors.length === 0) io.out(`${id} has no ancestors\n`);
    else printTable(io, ['diamond_id', 'lifecycle_state', 'box_id', 'participant_id'], ancestors.map((a) => [str(a.diamond_id), str(a.lifecycle_state), str(a.box_id), str(a.participant_id)]));
  }
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
  const d = (await unwrap(dtp.search.GET('/v1/diamonds/{diamond_id}', { params: { path: { diamond_id: id } } }))) as unknown as {
    polished?: Record<string, unknown> | null;
  };
  const polished = d.polished ?? {};
  const files: { kind: string; hash: string; filename: string | null; size: number | null; content_type: string | null }[] = [];
  const add = (kind: string, ref: unknown) => {
    const f = ref as { hash?: string; filename?: string | null; size?: number | null; content_type?: string | null };
    if (f?.hash) files.push({ kind, hash: f.hash, filename: f.filename ?? null, size: f.size ?? null, content_type: f.content_type ?? null });
  };
  for (const list of FILE_LISTS) for (const ref of (polished[list] as unknown[] | null | undefined) ?? []) add(list.replace(/s$/, ''), ref);
  if (polished.scan) add('scan', polished.scan);

  if (opts.download) {
    const known = files.find((f) => f.hash === opts.download);
    const target = path.resolve(io.cwd, opts.output ?? (known?.filename ? path.basename(known.filename) : opts.download));
    const answer = await dtp.search.GET('/v1/diamonds/{diamond_id}/files/{file_hash}', {
      params: { path: { diamond_id: id, file_hash: opts.download } },
      parseAs: 'stream',
    });
    const body = (await unwrap(answer)) as unknown as WebReadableStream<Uint8Array> | null;
    if (!body) throw new Error('the file answer had no body');
    await pipeline(Readable.fromWeb(body), createWriteStream(target));
    if (opts.json) printJson(io, { diamond_id: id, hash: opts.download, output: target });
    else io.err(`wrote ${target}\n`);
    return EXIT.ok;
  }
  if (opts.json) printJson(io, { diamond_id: id, files });
  else if (files.length === 0) io.out(`${id} has no files\n`);
  else printTable(io, ['kind', 'hash', 'filename', 'size'], files.map((f) => [f.kind, f.hash, f.filename, f.size]));
  return EXIT.ok;
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
