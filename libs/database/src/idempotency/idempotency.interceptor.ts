import { CallHandler, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defer, lastValueFrom, Observable } from 'rxjs';
import {
  DomainError,
  DomainErrorKind,
  IDEMPOTENCY_REPLAYED_HEADER,
  idempotencyKeyInUse,
  idempotencyKeyInvalid,
  idempotencyKeyReused,
  parseIdempotencyKey,
} from '@dtp/domain';
import { DOMAIN_ERROR_STATUS, PassThroughInterceptor } from '@dtp/service-kit';
import { UnitOfWork } from '../unit-of-work';
import { IdempotencyStore, StoredAnswer } from './idempotency.store';
import { isIdempotentMethod } from './idempotent-routes';
import { bodyDigest, MultipartDigest, requestFingerprint } from './request-fingerprint';

/**
 * The handler's refusals that are its first answer, stored and replayed like a success: they say something about
 * the state of things when the request ran (a conflict, a missing or deleted resource, a permission, a missing
 * prerequisite), which a later retry might otherwise see differently. Not stored (nothing changed, a retry runs
 * again): 422/400/413 (the request's own form: a corrected request may reuse its key), 401/429/503 (transient),
 * any 5xx, and whatever guards and pipes answer before the handler runs.
 */
const STORED_ERROR_KINDS: ReadonlySet<DomainErrorKind> = new Set(['forbidden', 'not_found', 'conflict', 'gone', 'precondition_failed']);

/** Nest marks a request whose pipes refused it (its handler did not run) with this registered symbol. */
const REJECTED_BY_PIPES = Symbol.for('nestjs:rejected-by-pipes');

type Caller = { participantId?: unknown };

/** What the first request with a key ended with. */
type Outcome = { kind: 'value'; value: unknown } | { kind: 'error'; error: DomainError } | { kind: 'stored'; answer: StoredAnswer };

/**
 * Idempotency-Key (IETF draft; DESIGN.md) on the POST and PATCH routes of the service (`isIdempotentMethod`):
 *
 * - no header (or no authenticated caller): the request runs exactly as without this interceptor;
 * - a malformed key: 422 naming the header;
 * - otherwise, in one transaction (`UnitOfWork.runShared`, which the handler's own units of work join): a
 *   transaction-scoped advisory lock on (participant, key), taken without waiting (held: 409
 *   `idempotency_key_in_use`); the stored answer of that key, if any, replayed (`Idempotency-Replayed: true`) when
 *   the request is the same (method, path with query, canonical JSON body or the digest of the multipart parts)
 *   and refused with 422 when it is not; otherwise the handler runs and its answer (a success, or a refusal of
 *   STORED_ERROR_KINDS) is stored before the commit. Any other error rolls everything back and is not stored.
 */
@Injectable()
export class IdempotencyInterceptor implements PassThroughInterceptor {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: IdempotencyStore,
  ) {}

  /** Nothing to do (the request runs exactly as without this interceptor): see the first case above. */
  passesThrough(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { caller?: Caller }>();
    return request.headers['idempotency-key'] === undefined || !isIdempotentMethod(request.method) || typeof request.caller?.participantId !== 'string';
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.passesThrough(context)) return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { caller?: Caller }>();
    const participantId = request.caller!.participantId as string;
    return defer(() => this.idempotent(request, http.getResponse<FastifyReply>(), participantId, String(request.headers['idempotency-key']), next));
  }

  private async idempotent(request: FastifyRequest, reply: FastifyReply, participantId: string, header: string, next: CallHandler): Promise<unknown> {
    const parsed = parseIdempotencyKey(header);
    if ('problem' in parsed) throw idempotencyKeyInvalid(parsed.problem);
    const { key } = parsed;
    const multipart = MultipartDigest.tap(request.raw);
    // The body as it arrived, digested now: interceptors, pipes and the handler run after this one and may change
    // `request.body` (an optional body is read as `{}`), and a retry is compared before any of them runs.
    const arrived = multipart ? undefined : bodyDigest(request.body);
    const fingerprint = async () => requestFingerprint(request.method, request.url, multipart ? await multipart.digest() : arrived!);

    const outcome = await this.uow.runShared(async (tx): Promise<Outcome> => {
      if (!(await this.store.tryLock(tx, participantId, key))) throw idempotencyKeyInUse();
      const answer = await this.store.find(tx, participantId, key);
      if (answer) return { kind: 'stored', answer };
      let first: Outcome;
      try {
        first = { kind: 'value', value: await lastValueFrom(next.handle(), { defaultValue: undefined }) };
      } catch (error) {
        if (!(error instanceof DomainError) || !STORED_ERROR_KINDS.has(error.kind) || rejectedByPipes(request)) throw error;
        first = { kind: 'error', error };
      }
      const stored: StoredAnswer =
        first.kind === 'value'
          ? { fingerprint: await fingerprint(), status: reply.statusCode, body: first.value === undefined ? null : JSON.stringify(first.value) }
          : { fingerprint: await fingerprint(), status: DOMAIN_ERROR_STATUS[first.error.kind], body: JSON.stringify(first.error.body) };
      await this.store.save(tx, participantId, key, stored);
      return first;
    });

    switch (outcome.kind) {
      case 'value':
        return outcome.value;
      case 'error':
        throw outcome.error;
      case 'stored': {
        // Compared after the commit: a multipart body is read to its end first, and no transaction waits for it.
        if ((await fingerprint()) !== outcome.answer.fingerprint) throw idempotencyKeyReused();
        void reply.status(outcome.answer.status).header(IDEMPOTENCY_REPLAYED_HEADER, 'true');
        return outcome.answer.body === null ? undefined : JSON.parse(outcome.answer.body);
      }
    }
  }
}

function rejectedByPipes(request: FastifyRequest): boolean {
  return (request as unknown as Record<symbol, unknown>)[REJECTED_BY_PIPES] === true;
}
