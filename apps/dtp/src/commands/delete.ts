import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { DELETE_LIMIT } from '@dtp/domain';
import { PlatformSchema, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode } from '../exit-codes';
import { collectIds } from '../ids-file';
import { CliIo, printJson, printTable } from '../io';

type DeleteResult = PlatformSchema<'BulkDeleteResponse'>['results'][number];

/**
 * `dtp delete --from <file>`: deletes the diamonds named in the file (and as arguments) in requests of up to
 * 1,000, each entry on its own (one failure never stops another). Each request carries an Idempotency-Key made of
 * the ids it names, so a retry after a lost answer gets that answer rather than `not_found` for what it deleted.
 * Exit 3 when some deletions failed (the reasons are listed, and written with --out).
 */
export async function deleteDiamonds(
  io: CliIo,
  args: string[],
  opts: { from?: string; descendants: boolean; out?: string; json: boolean; profile?: string },
): Promise<ExitCode> {
  const ids = collectIds(io, args, opts.from, 'delete');
  const dtp = clientFor(io, opts.profile, 'platform');
  const results: DeleteResult[] = [];
  for (let i = 0; i < ids.length; i += DELETE_LIMIT) {
    const batch = ids.slice(i, i + DELETE_LIMIT);
    const body = { diamonds: batch.map((diamond_id) => ({ diamond_id, delete_descendants: opts.descendants })) };
    const key = `dtp-delete-${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 40)}`;
    const answer = await unwrap(dtp.platform.POST('/bulk/diamonds/delete', { body, headers: { 'Idempotency-Key': key } }));
    results.push(...answer.results);
  }
  const failed = results.filter((r): r is Extract<DeleteResult, { status: 'failure' }> => r.status === 'failure');
  if (opts.out) {
    const rows = results.map((r) => ({
      diamond_id: r.diamond_id,
      status: r.status,
      reason: r.status === 'failure' ? r.reason : '',
      descendants: r.descendants.join(' '),
    }));
    writeFileSync(path.resolve(io.cwd, opts.out), stringify(rows, { header: true, columns: ['diamond_id', 'status', 'reason', 'descendants'] }));
  }
  if (opts.json) printJson(io, { deleted: results.length - failed.length, failed: failed.length, results });
  else {
    const descendants = results.reduce((n, r) => n + r.descendants.length, 0);
    io.out(`deleted ${results.length - failed.length} of ${results.length} diamonds${descendants ? ` (and ${descendants} descendants)` : ''}\n`);
    if (failed.length > 0)
      printTable(
        io,
        ['diamond_id', 'reason'],
        failed.map((r) => [r.diamond_id, r.reason]),
      );
  }
  if (failed.length === 0) return EXIT.ok;
  return failed.length === results.length ? EXIT.failure : EXIT.partial;
}
