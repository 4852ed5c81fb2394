import { ConflictError, invalidFields, InvalidError, NotFoundError } from '@dtp/domain';

/** A shipment the caller may not see answers exactly like an unknown id (no existence leak). */
export function shipmentNotFound(): NotFoundError {
  return new NotFoundError('shipment not found');
}

/** A 422 naming one body field. */
export function badField(field: string, msg: string, type: string): InvalidError {
  return invalidFields([{ loc: ['body', field], msg, type }]);
}

/** 409 `{message, reason, ...extra}`. */
export function conflict(reason: string, message: string, extra: Record<string, unknown> = {}): ConflictError {
  return new ConflictError(message, reason, extra);
}

/** Shortens a list of ids for a message (the full list travels in the body). */
export function idList(ids: string[], max = 10): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`;
}
