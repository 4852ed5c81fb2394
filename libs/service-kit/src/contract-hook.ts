import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A check run on every answer of an application against its own OpenAPI document (tests install one:
 * libs/testing/src/contract.ts; a running service has none). Called once per application with its document,
 * it returns the per-answer check, which must not change the answer.
 */
export type ResponseContractCheck = (service: string, document: OpenAPIObject) => (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;

/** Shared through the global object so that a test setup can install a check without loading the kit. */
const KEY = Symbol.for('dtp.responseContractCheck');
type Holder = { [KEY]?: ResponseContractCheck };

export function setResponseContractCheck(check: ResponseContractCheck | undefined): void {
  (globalThis as Holder)[KEY] = check;
}

export function responseContractCheck(): ResponseContractCheck | undefined {
  return (globalThis as Holder)[KEY];
}
