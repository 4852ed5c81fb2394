import type { ValidationHistoryEntry, ValidationPoll } from '@dtp/domain';
import type { ValidationRequestEntity } from './validation-request.entity';

/** The poll body of a request (parameters null while Pending or when the request errored). */
export function toValidationPoll(e: ValidationRequestEntity): ValidationPoll {
  return {
    diamond_id: e.diamondId,
    request_id: e.requestId,
    requested_at: new Date(e.requestedAt).toISOString(),
    verification_status: e.status,
    verification_description: e.verificationDescription,
    verification_error: e.verificationError,
    parameters: e.parameters,
  };
}

/** A history entry; `expired` once answered_at + expiry has passed. */
export function toHistoryEntry(e: ValidationRequestEntity, expirySeconds: number, now: number = Date.now()): ValidationHistoryEntry {
  const answered = e.answeredAt ? new Date(e.answeredAt).getTime() : null;
  return {
    diamond_id: e.diamondId,
    request_id: e.requestId,
    requested_at: new Date(e.requestedAt).toISOString(),
    verification_status: e.status,
    verification_description: e.verificationDescription,
    verification_error: e.verificationError,
    expired: answered !== null && answered + expirySeconds * 1000 <= now,
  };
}
