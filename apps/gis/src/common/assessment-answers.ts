import { HttpStatus } from '@nestjs/common';
import type { IneligibleResponse } from '@dtp/domain';
import type { Assessment } from '../diamonds/eligibility';
import { Answer, notFound } from './http-errors';

export const DIAMOND_NOT_FOUND = 'diamond not found';

/**
 * The error answer verify and validate share for a diamond that is unknown (404), deleted (410), ineligible
 * (409 `{reason, detail}`) or whose scan report cannot be read yet (503); undefined when it may proceed.
 */
export function refusal(assessment: Assessment | null): Answer | undefined {
  if (assessment === null) return notFound(DIAMOND_NOT_FOUND);
  switch (assessment.kind) {
    case 'deleted':
      return { status: HttpStatus.GONE, body: { reason: 'diamond_has_been_deleted', detail: null } satisfies IneligibleResponse };
    case 'ineligible':
      return { status: HttpStatus.CONFLICT, body: { reason: assessment.reason, detail: assessment.detail } satisfies IneligibleResponse };
    case 'unavailable':
      return {
        status: HttpStatus.SERVICE_UNAVAILABLE,
        body: { detail: 'the diamond\'s scan report cannot be read from the file store yet; retry later' },
        headers: { 'Retry-After': '5' },
      };
    case 'eligible':
      return undefined;
  }
}
