import { unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo, printJson, printTable } from '../io';

export interface LookupOptions {
  profile?: string;
  json: boolean;
  reportNumber?: string;
  lab?: string;
  inscription?: string;
  certificateNumber?: string;
}

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/**
 * `dtp lookup --report-number N [--lab L] | --inscription T | --certificate-number N`: diamonds by what people who
 * meet them hold (search's `GET /v1/lookup`, a non-participant's credentials). Exactly one criterion, checked here
 * before any request (exit 2). No match: a line saying so on stderr, exit 0 (`--json`: `{"results": []}`).
 */
export async function lookup(io: CliIo, opts: LookupOptions): Promise<ExitCode> {
  const given = (
    [
      ['--report-number', opts.reportNumber],
      ['--inscription', opts.inscription],
      ['--certificate-number', opts.certificateNumber],
    ] as const
  ).filter(([, v]) => v !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      `give exactly one of --report-number, --inscription, --certificate-number${given.length > 1 ? ` (got ${given.map(([o]) => o).join(', ')})` : ''}`,
    );
  }
  if (opts.lab !== undefined && opts.reportNumber === undefined) throw new UsageError('--lab goes with --report-number');
  for (const [option, value] of given) if (value!.trim() === '') throw new UsageError(`${option} must not be empty`);
  const dtp = clientFor(io, opts.profile, 'search');
  const answer = await unwrap(
    dtp.search.GET('/v1/lookup', {
      params: {
        query: {
          grader_report_number: opts.reportNumber,
          grading_lab: opts.lab as never,
          inscription: opts.inscription,
          certificate_number: opts.certificateNumber,
        },
      },
    }),
  );
  if (opts.json) printJson(io, answer);
  else if (answer.results.length === 0) io.err('no diamond found\n');
  else
    printTable(
      io,
      ['diamond_id', 'lifecycle_state', 'carats', 'shape', 'grading_lab', 'report_number'],
      answer.results.map((d) => {
        const g = d.grading?.[0];
        return [
          d.diamond_id,
          d.lifecycle_state,
          str(g?.carats ?? d.polished?.carats ?? d.rough?.carats),
          str(g?.shape ?? d.polished?.shape),
          str(g?.grading_lab),
          str(g?.grader_report_number),
        ];
      }),
    );
  return EXIT.ok;
}
