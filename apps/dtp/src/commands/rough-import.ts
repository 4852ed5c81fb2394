import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { SingleBar } from 'cli-progress';
import { stringify } from 'csv-stringify';
import { DtpApiError, DtpNetworkError, PlatformSchema, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { parseRoughCsv, RoughRow, rowIdempotencyKey } from '../import/rough-csv';
import { CliIo, printJson } from '../io';

export interface RoughImportOptions {
  concurrency: number;
  skipInvalid: boolean;
  dryRun: boolean;
  out?: string;
  json: boolean;
  profile?: string;
}

type CreateRough = PlatformSchema<'CreateRoughDiamond'>;

interface RowResult {
  line: number;
  box_id: unknown;
  participant_id: unknown;
  diamond_id: string;
  error: string;
}

/** Problems listed on stderr before "... and N more" (--json lists them all). */
const PROBLEMS_SHOWN = 50;

/**
 * `dtp rough import <file.csv>`: validates every row first (nothing is sent while any row is invalid, unless
 * --skip-invalid), then registers the rows with `--concurrency` requests in flight, each with an Idempotency-Key
 * made of the file's sha256 and the row's line, so running the same file again (after a crash, a kill, a lost
 * connection) answers the rows already registered with their first answer and registers nothing twice. Writes a
 * result CSV (line, box_id, participant_id, diamond_id, error) in line order as rows complete.
 */
export async function roughImport(io: CliIo, file: string, opts: RoughImportOptions): Promise<ExitCode> {
  const source = path.resolve(io.cwd, file);
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseRoughCsv(bytes);
  if (parsed.rows.length === 0) throw new UsageError(`${file} has a header but no rows`);
  const invalid = parsed.rows.filter((r) => parsed.invalidLines.has(r.line));
  if (invalid.length > 0) reportProblems(io, file, parsed.problems, invalid.length, parsed.rows.length, opts);
  if (invalid.length > 0 && !opts.skipInvalid) {
    if (opts.json) printJson(io, { file, rows: parsed.rows.length, invalid: invalid.length, sent: 0, problems: parsed.problems });
    io.err(`nothing sent: fix the rows above, or pass --skip-invalid to register the ${parsed.rows.length - invalid.length} valid rows\n`);
    return EXIT.usage;
  }
  if (opts.dryRun) {
    if (opts.json) printJson(io, { file, rows: parsed.rows.length, invalid: invalid.length, sent: 0, problems: parsed.problems });
    else io.err(`${parsed.rows.length - invalid.length} of ${parsed.rows.length} rows are valid; nothing sent (--dry-run)\n`);
    return EXIT.ok;
  }

  const dtp = clientFor(io, opts.profile, 'platform');
  // One token before the first row: credentials that are refused stop here, with one message.
  await dtp.tokens!.getToken(dtp.audience('platform'));

  const outFile = opts.out ? path.resolve(io.cwd, opts.out) : source.replace(/(\.csv)?$/i, '.result.csv');
  const writer = resultWriter(outFile, parsed.rows);
  const toSend = parsed.rows.filter((r) => !parsed.invalidLines.has(r.line));
  for (const row of invalid) {
    const fields = parsed.problems.filter((p) => p.line === row.line).map((p) => `${p.field}: ${p.msg}`);
    writer.done(row, { diamond_id: '', error: `invalid (not sent): ${fields.join('; ')}` });
  }

  const started = performance.now();
  const counts = { registered: 0, replayed: 0, failed: 0, notSent: 0, abandoned: 0 };
  const bar = io.errIsTTY && !opts.json ? progressBar(io) : undefined;
  bar?.start(toSend.length, 0, { rate: '0', failed: 0 });
  let stop: string | undefined;
  let next = 0;
  // Ctrl-C: the first stops sending and lets the rows in flight finish (their answers go into the result file);
  // a second abandons them (their outcome is unknown: the result file says so). Either way exit 130.
  let interrupts = 0;
  const inFlight = new Set<AbortController>();
  const stopInterrupts = io.onInterrupt?.(() => {
    interrupts += 1;
    if (interrupts === 1) {
      stop ??= INTERRUPTED;
      bar?.stop();
      if (!opts.json) io.err(`\ninterrupted: finishing the ${inFlight.size} rows in flight (Ctrl-C again abandons them)\n`);
    } else {
      for (const c of inFlight) c.abort(new Error(ABANDONED));
    }
  });

  const worker = async () => {
    while (next < toSend.length) {
      const row = toSend[next++];
      if (stop) {
        counts.notSent += 1;
        writer.done(row, { diamond_id: '', error: `not sent: ${stop}` });
        continue;
      }
      const abort = new AbortController();
      inFlight.add(abort);
      try {
        const answer = await dtp.platform.POST('/diamonds/rough/create', {
          body: row.body as CreateRough, // checked with CreateRoughDiamondDto above
          headers: { 'Idempotency-Key': rowIdempotencyKey(parsed.sha256, row.line) },
          signal: abort.signal,
        });
        const diamond = await unwrap(answer);
        if (answer.response.headers.get('idempotency-replayed') === 'true') counts.replayed += 1;
        counts.registered += 1;
        writer.done(row, { diamond_id: diamond.diamond_id, error: '' });
      } catch (err) {
        if (abort.signal.aborted) {
          counts.abandoned += 1;
          writer.done(row, { diamond_id: '', error: `${ABANDONED}: sent, answer not awaited (it may be registered; a rerun answers its diamond_id)` });
        } else {
          counts.failed += 1;
          writer.done(row, { diamond_id: '', error: describe(err) });
        }
        // The credentials or the role, not the row: every further row would fail the same way.
        if (err instanceof DtpApiError && (err.status === 401 || err.status === 403)) stop ??= describe(err);
      } finally {
        inFlight.delete(abort);
      }
      const secs = (performance.now() - started) / 1000;
      if (!interrupts)
        bar?.update(counts.registered + counts.failed, {
          rate: secs > 0 ? ((counts.registered + counts.failed) / secs).toFixed(0) : '0',
          failed: counts.failed,
        });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, toSend.length) }, worker));
  } finally {
    stopInterrupts?.();
  }
  bar?.stop();
  await writer.close();

  const seconds = (performance.now() - started) / 1000;
  const summary = {
    file,
    result_file: outFile,
    rows: parsed.rows.length,
    registered: counts.registered,
    replayed: counts.replayed,
    failed: counts.failed,
    invalid_skipped: invalid.length,
    not_sent: counts.notSent,
    ...(interrupts ? { interrupted: true, abandoned: counts.abandoned } : {}),
    seconds: Number(seconds.toFixed(3)),
    rows_per_second: Number(((counts.registered + counts.failed) / Math.max(seconds, 0.001)).toFixed(1)),
  };
  const resume = `to resume, run the same command on the same file: rows already registered answer with their first answer (each row's Idempotency-Key is the file's hash and its line), so nothing is registered twice`;
  if (opts.json) printJson(io, interrupts ? { ...summary, resume } : summary);
  else {
    io.err(
      `registered ${counts.registered} of ${parsed.rows.length} rows` +
        `${counts.replayed ? ` (${counts.replayed} already registered by an earlier run)` : ''}` +
        `, ${counts.failed} failed, ${invalid.length} invalid skipped${counts.notSent ? `, ${counts.notSent} not sent` : ''}` +
        `${counts.abandoned ? `, ${counts.abandoned} abandoned in flight` : ''}` +
        ` in ${seconds.toFixed(1)} s (${summary.rows_per_second} rows/s); results in ${outFile}\n`,
    );
    if (interrupts) io.err(`interrupted: ${resume}\n`);
    else if (stop) io.err(`stopped: ${stop}\n`);
  }
  if (interrupts) return EXIT.interrupted;
  if (stop || (counts.registered === 0 && parsed.rows.length > 0)) return EXIT.failure;
  return counts.failed > 0 || invalid.length > 0 || counts.notSent > 0 ? EXIT.partial : EXIT.ok;
}

const INTERRUPTED = 'interrupted (Ctrl-C)';
const ABANDONED = 'abandoned on a second Ctrl-C';

function reportProblems(
  io: CliIo,
  file: string,
  problems: { line: number; field: string; msg: string }[],
  invalid: number,
  rows: number,
  opts: RoughImportOptions,
) {
  if (opts.json) return;
  io.err(`${file}: ${invalid} of ${rows} rows are invalid:\n`);
  for (const p of problems.slice(0, PROBLEMS_SHOWN)) io.err(`  line ${p.line}: ${p.field}: ${p.msg}\n`);
  if (problems.length > PROBLEMS_SHOWN) io.err(`  ... and ${problems.length - PROBLEMS_SHOWN} more (--json lists them all)\n`);
}

function describe(err: unknown): string {
  if (err instanceof DtpApiError) {
    const fields = err.detail.map((d) => `${d.loc.filter((l) => l !== 'body').join('.')}: ${d.msg}`).join('; ');
    const text = fields || String((err.body as { message?: unknown })?.message ?? '');
    return `${err.status}${err.reason ? ` ${err.reason}` : ''}${text ? `: ${text}` : ''}`;
  }
  if (err instanceof DtpNetworkError) return `network: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

function progressBar(io: CliIo): SingleBar {
  return new SingleBar({
    stream: io.errStream,
    format: 'rough import [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} | {failed} failed',
    barCompleteChar: '#',
    barIncompleteChar: '.',
    hideCursor: true,
    etaBuffer: 200,
    fps: 5,
  });
}

/**
 * The result CSV, written in line order while rows complete in any order: a row's result waits until those of
 * every earlier row are in (with bounded concurrency that is a handful of rows).
 */
function resultWriter(file: string, rows: RoughRow[]) {
  const order = new Map(rows.map((r, i) => [r.line, i]));
  const pending = new Map<number, RowResult>();
  let nextIndex = 0;
  const csv = stringify({ header: true, columns: ['line', 'box_id', 'participant_id', 'diamond_id', 'error'] });
  const out = createWriteStream(file);
  csv.pipe(out);
  return {
    done(row: RoughRow, result: { diamond_id: string; error: string }) {
      pending.set(order.get(row.line)!, { line: row.line, box_id: row.body.box_id ?? '', participant_id: row.body.participant_id ?? '', ...result });
      while (pending.has(nextIndex)) {
        csv.write(pending.get(nextIndex));
        pending.delete(nextIndex);
        nextIndex += 1;
      }
    },
    async close() {
      csv.end();
      await once(out, 'finish');
    },
  };
}
