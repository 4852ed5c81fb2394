import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { UsageError } from './exit-codes';
import type { CliIo } from './io';

/**
 * Diamond ids from a file: one per line (blank lines and `#` comments skipped), or a CSV whose header has a
 * `diamond_id` column (e.g. the result file of `dtp rough import`; rows without an id are skipped).
 */
export function readIdsFile(io: CliIo, file: string): string[] {
  let text: string;
  try {
    text = readFileSync(path.resolve(io.cwd, file), 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0];
  let ids: string[];
  if (
    firstLine
      .split(',')
      .map((c) => c.trim())
      .includes('diamond_id')
  ) {
    const records = parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Record<string, string>[];
    ids = records.map((r) => r.diamond_id.trim()).filter(Boolean);
  } else {
    ids = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
  }
  if (ids.length === 0) throw new UsageError(`${file} names no diamond ids`);
  return ids;
}

/** Ids from arguments and/or --from, in order, without repeats. */
export function collectIds(io: CliIo, args: string[], from: string | undefined, what: string): string[] {
  const ids = [...args, ...(from ? readIdsFile(io, from) : [])];
  if (ids.length === 0) throw new UsageError(`name the diamonds to ${what}: as arguments or with --from <file>`);
  return [...new Set(ids)];
}
