import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiProduces, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GRADING_LAB_VALUES, ID_MAX_LENGTH, invalidFields, MessageErrorResponse, NotFoundError, RateLimitedError, ValidationErrorResponse } from '@dtp/domain';
import { ApiErrors, Public, RATE_LIMIT_REASON, RateLimits, TakesFormBody } from '@dtp/service-kit';
import { SearchConfig } from '../config';
import {
  LOOKUP_CSP,
  LOOKUP_FIELDS,
  renderLookupChoices,
  renderLookupForm,
  renderLookupInvalid,
  renderLookupLimited,
  renderLookupNotFound,
} from './passport-lookup-page';
import { PassportLookupService } from './passport-lookup.service';

const HTML = { 'text/html': { schema: { type: 'string', description: 'An HTML document.' } } };
const FORM_EXAMPLE =
  '<!DOCTYPE html>\n<html lang="en">...<h1>Find a diamond passport</h1>...<form class="lookup" method="post" action="/passport/lookup">...</form>...</html>\n';
const CHOICES_EXAMPLE =
  '<!DOCTYPE html>\n<html lang="en">...<h1>Several passports found</h1>...<li><a href="/passport/q5Jx0C3c9tq3p0C5rQyWZw">Passport 1 (graded by GIA, 1.01 ct)</a></li>...</html>\n';
const html = (example: string) => ({ 'text/html': { ...HTML['text/html'], example } });
const CSP_HEADER = {
  'Content-Security-Policy': { description: "No script; the pages' styles by hash; the form posts to this service only.", schema: { type: 'string' } },
};
/** NUL, or a UTF-16 surrogate without its pair (DESIGN.md "Input bounds"). */
const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const BROWSER_OR_JSON = 'A browser (`Accept: text/html`) gets the page; any other client JSON';
/** The one JSON 404, whatever the reason (no existence oracle here either). */
const NOT_FOUND_MESSAGE = 'no shared passport for that report number';
const jsonOf = (model: Function) => ({ 'application/json': { schema: { $ref: getSchemaPath(model) } } });

type Input = { ok: true; reportNumber: string; gradingLab: string | null } | { ok: false; error: string; field: string };

/** The form's fields, checked for their form only (what is checked says nothing about any diamond). */
export function lookupInput(body: unknown): Input {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const report = fields[LOOKUP_FIELDS.reportNumber];
  const lab = fields[LOOKUP_FIELDS.gradingLab];
  if (typeof report !== 'string' || (lab !== undefined && typeof lab !== 'string'))
    return { ok: false, error: 'Enter one report number.', field: LOOKUP_FIELDS.reportNumber };
  const reportNumber = report.trim();
  if (reportNumber === '') return { ok: false, error: 'Enter the report number.', field: LOOKUP_FIELDS.reportNumber };
  if (reportNumber.length > ID_MAX_LENGTH)
    return { ok: false, error: `A report number has at most ${ID_MAX_LENGTH} characters.`, field: LOOKUP_FIELDS.reportNumber };
  if (BAD_TEXT.test(reportNumber))
    return { ok: false, error: 'The report number contains characters that cannot be looked up.', field: LOOKUP_FIELDS.reportNumber };
  const gradingLab = lab === undefined || lab === '' ? null : (GRADING_LAB_VALUES.find((l) => l.toLowerCase() === lab.toLowerCase()) ?? undefined);
  if (gradingLab === undefined) return { ok: false, error: 'Choose a grading lab from the list, or any lab.', field: LOOKUP_FIELDS.gradingLab };
  return { ok: true, reportNumber, gradingLab };
}

/**
 * The passport's "look up by report number" (DESIGN.md "Looking a diamond up by what people hold"): public, no
 * token. A report number whose diamond's holder shared it (a live link) redirects (303) to that passport; anything
 * else is the same 404 page, byte for byte, whether a diamond has that number or not. Look-ups are limited per
 * client address (PASSPORT_LOOKUP_PER_IP per PASSPORT_LOOKUP_WINDOW_SECONDS): 429 with Retry-After.
 */
@ApiTags('passport')
@Public()
@Controller('passport/lookup')
export class PassportLookupController {
  private readonly limits: RateLimits;

  constructor(
    @Inject(PassportLookupService) private readonly lookups: PassportLookupService,
    @Inject(SearchConfig) config: SearchConfig,
  ) {
    this.limits = new RateLimits({
      RATE_LIMIT_PER_CLIENT: 0,
      RATE_LIMIT_PER_IP: config.PASSPORT_LOOKUP_PER_IP,
      RATE_LIMIT_WINDOW_SECONDS: config.PASSPORT_LOOKUP_WINDOW_SECONDS,
    });
  }

  @Get()
  @ApiOperation({
    operationId: 'getPassportLookupForm',
    summary: 'The public "look up by report number" form (HTML, no token)',
    description: "A form that opens a diamond's passport from its grading report number, when the diamond's holder has shared it.",
  })
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'The form.', headers: CSP_HEADER, content: html(FORM_EXAMPLE) })
  async form(@Res() reply: FastifyReply): Promise<void> {
    await this.html(reply, 200, renderLookupForm());
  }

  @Post()
  @ApiOperation({
    operationId: 'lookupPassport',
    summary: "Open a shared diamond's passport by its grading report number (HTML form, no token)",
    description:
      "Compared exactly (surrounding spaces removed) and case-insensitively with the report number of each diamond's active grading, and its lab when chosen. " +
      "Only diamonds whose holder has a live share link are found: one -> 303 to that link's passport; several (labs can share numbers) -> a page linking each; " +
      'anything else -> the same 404 page whether or not a diamond has that number. Limited per client address: 429 with `Retry-After`.',
  })
  @TakesFormBody()
  @ApiBody({
    schema: {
      type: 'object',
      required: [LOOKUP_FIELDS.reportNumber],
      properties: {
        [LOOKUP_FIELDS.reportNumber]: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, example: '2141438172' },
        [LOOKUP_FIELDS.gradingLab]: { type: 'string', enum: ['', ...GRADING_LAB_VALUES], description: 'Empty: any lab.', example: 'GIA' },
      },
    },
  })
  @ApiProduces('text/html')
  @ApiResponse({
    status: 303,
    description: "The diamond's passport: `Location` is `/passport/{share_id}` of its live share link.",
    headers: { Location: { description: 'The passport page of the shared diamond (a path on this service).', schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 200,
    description: 'Several shared diamonds have that number: links to their passports.',
    headers: CSP_HEADER,
    content: html(CHOICES_EXAMPLE),
  })
  @ApiResponse({
    status: 404,
    description: `No shared passport for that number: always the same page. ${BROWSER_OR_JSON}`,
    headers: CSP_HEADER,
    content: { ...HTML, ...jsonOf(MessageErrorResponse) },
  })
  @ApiResponse({
    status: 422,
    description: `No report number, one longer than 256 characters, or an unknown lab: the form with the reason. ${BROWSER_OR_JSON} (the validation body, naming the field)`,
    content: { ...HTML, ...jsonOf(ValidationErrorResponse) },
  })
  @ApiResponse({
    status: 429,
    description: `Too many look-ups from this address (PASSPORT_LOOKUP_PER_IP per PASSPORT_LOOKUP_WINDOW_SECONDS): a page saying when to try again. ${BROWSER_OR_JSON} (\`reason\`: \`rate_limited\`)`,
    headers: { 'Retry-After': { description: 'Seconds until look-ups are accepted again.', schema: { type: 'integer', minimum: 1 } } },
    content: { ...HTML, ...jsonOf(MessageErrorResponse) },
  })
  @ApiErrors({ 503: "The read model's database cannot be reached right now; retry after `Retry-After` seconds." })
  async lookup(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // A browser (Accept: text/html) gets the pages; any other client the API's JSON errors, like the passport's.
    const browser = /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(request.headers.accept ?? '');
    const outcome = await this.limits.take({ ip: request.ip });
    if (outcome && !outcome.allowed) {
      if (!browser) {
        throw new RateLimitedError(
          { message: `too many look-ups from this address; retry in ${outcome.resetSeconds} s`, reason: RATE_LIMIT_REASON },
          outcome.resetSeconds,
          { headers: outcome.headers },
        );
      }
      reply.headers({ ...outcome.headers, 'retry-after': String(outcome.resetSeconds) });
      await this.html(reply, 429, renderLookupLimited(outcome.resetSeconds));
      return;
    }
    const input = lookupInput(request.body);
    if (!input.ok) {
      if (!browser) throw invalidFields([{ loc: ['body', input.field], msg: input.error, type: 'value_error' }]);
      await this.html(reply, 422, renderLookupInvalid(input.error));
      return;
    }
    const found = await this.lookups.shared(input.reportNumber, input.gradingLab);
    if (found.length === 1) {
      await reply
        .status(303)
        .header('location', `/passport/${encodeURIComponent(found[0].shareId)}`)
        .header('cache-control', 'no-store')
        .send();
      return;
    }
    if (found.length > 1) await this.html(reply, 200, renderLookupChoices(found));
    else if (!browser) throw new NotFoundError(NOT_FOUND_MESSAGE);
    else await this.html(reply, 404, renderLookupNotFound());
  }

  private async html(reply: FastifyReply, status: number, body: string): Promise<void> {
    await reply
      .status(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', LOOKUP_CSP)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(body);
  }
}
