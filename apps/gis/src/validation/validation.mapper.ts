import type { ValidationHistoryEntry, ValidationPoll } from '@dtp/domain';
import type { ValidationRequestEntity } from './validation-request.entity';

/** The poll body of a request (parameters null while Pending or when the request errored). */
export function toValidationPoll(e: ValidationRequestEntity): ValidationPoll {
  return {
    diamond_id: e.diamond_id,
    request_id: e.request_id,
    requested_at: new Date(e.requested_at).toISOString(),
    verification_status: e.status,
    verification_description: e.verification_description,
    verification_error: e.verification_error,
    parameters: e.parameters,
  };
}

/** A history entry; `expired` once answered_at + expiry has passed. */
export function toHistoryEntry(e: ValidationRequestEntity, expirySeconds: number, now: number = Date.now()): ValidationHistoryEntry {
  const answered = e.answered_at ? new Date(e.answered_at).getTime() : null;
  return {
    diamond_id: e.diamond_id,
    request_id: e.request_id,
    requested_at: new Date(e.requested_at).toISOString(),
    verification_status: e.status,
    verification_description: e.verification_description,
    verification_error: e.verification_error,
    expired: answered !== null && answered + expirySeconds * 1000 <= now,
  };
}
