import { setTimeout as delay } from 'node:timers/promises';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { toValidationDetail, ValidateJsonRequestDto, VerifyRequestDto } from '@dtp/domain';
import { GisSchema, newIdempotencyKey, unwrap } from '@dtp/sdk';
import { clientFor } from '../config';
import { EXIT, ExitCode, UsageError } from '../exit-codes';
import { CliIo, printJson, printTable } from '../io';

type ValidateBody = GisSchema<'ValidateJsonRequest'>;

interface Common {
  profile?: string;
  json: boolean;
}

/** Checks a body with the service's DTO before sending; a bad value is a usage error naming its option. */
function check<T extends object>(cls: new () => object, body: object): asserts body is T {
  const detail = toValidationDetail(validateSync(plainToInstance(cls, body), { whitelist: true, forbidNonWhitelisted: true }), []);
  if (detail.length > 0) {
    throw new UsageError(detail.map((d) => `--${String(d.loc[0]).replace(/_/g, '-')}: ${d.msg}`).join('; '));
  }
}

/** `dtp gis verify <id> --carat-weight N --shape-group S`: does the stone in hand match the registered one? */
export async function gisVerify(io: CliIo, id: string, opts: Common & { caratWeight: number; shapeGroup: string }): Promise<ExitCode> {
  const body = { carat_weight: opts.caratWeight, shape_group: opts.shapeGroup };
  check<GisSchema<'VerifyRequest'>>(VerifyRequestDto, body);
  const dtp = clientFor(io, opts.profile, 'gis');
  const answer = await unwrap(
    dtp.gis.POST('/v2/diamonds/{diamond_id}/verify', {
      params: { path: { diamond_id: id } },
      body,
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
  if (opts.json) printJson(io, answer);
  else if (answer.status === 'success') io.out(`verified: ${id} matches (${answer.is_locked ? 'locked' : 'unlocked'})\n`);
  else {
    io.out(`not verified: ${id} does not match\n`);
    const { carat_weight: c, shape_group: g } = answer.data;
    printTable(
      io,
      ['field', 'matched', 'registered', 'given'],
      [
        ['carat_weight', String(c.matched), c.known_value, c.given_value],
        ['shape_group', String(g.matched), g.known_value, g.given_value],
      ],
    );
  }
  return EXIT.ok;
}

export interface ValidateOptions extends Common {
  shapeGroup: string;
  estimatedWeightCrt: number;
  girdleAvgMm: number;
  tableAvgMm: number;
  totalDepthMm: number;
  crownAngleDeg?: number;
  pavillionAngleDeg?: number;
  wait: boolean;
  /** Seconds --wait waits at most. */
  timeout: number;
  /** Seconds between polls. */
  interval: number;
}

/**
 * `dtp gis validate <id> ...`: submits the lab's measurements for comparison with the scan report (202 and a
 * request id); with --wait, polls until the answer is no longer Pending (exit 1 when --timeout passes first).
 */
export async function gisValidate(io: CliIo, id: string, opts: ValidateOptions): Promise<ExitCode> {
  const body = {
    shape_group: opts.shapeGroup,
    estimated_weight_crt: opts.estimatedWeightCrt,
    girdle_avg_mm: opts.girdleAvgMm,
    table_avg_mm: opts.tableAvgMm,
    total_depth_mm: opts.totalDepthMm,
    ...(opts.crownAngleDeg !== undefined ? { crown_angle_deg: opts.crownAngleDeg } : {}),
    ...(opts.pavillionAngleDeg !== undefined ? { pavillion_angle_deg: opts.pavillionAngleDeg } : {}),
  };
  check<ValidateBody>(ValidateJsonRequestDto, body);
  const dtp = clientFor(io, opts.profile, 'gis');
  const accepted = await unwrap(
    dtp.gis.POST('/v2/diamonds/{diamond_id}/validate-json', {
      params: { path: { diamond_id: id } },
      body,
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
  if (!opts.wait) {
    if (opts.json) printJson(io, accepted);
    else io.out(`validation requested: ${accepted.request_id} (${accepted.verification_status}); poll ${accepted.status_url}\n`);
    return EXIT.ok;
  }
  const deadline = Date.now() + opts.timeout * 1000;
  for (;;) {
    const poll = await unwrap(
      dtp.gis.GET('/v2/diamonds/{diamond_id}/validate/{request_id}', { params: { path: { diamond_id: id, request_id: accepted.request_id } } }),
    );
    const p = poll;
    if (p.verification_status !== 'Pending') {
      if (opts.json) printJson(io, poll);
      else io.out(`${p.verification_status}: ${p.verification_description ?? p.verification_error ?? ''} (request ${accepted.request_id})\n`);
      return EXIT.ok;
    }
    if (Date.now() >= deadline) {
      if (opts.json) printJson(io, poll);
      io.err(`still Pending after ${opts.timeout} s (request ${accepted.request_id}); poll it later with the request id\n`);
      return EXIT.failure;
    }
    await delay(opts.interval * 1000);
  }
}
