import { ConflictException, NotFoundException } from '@nestjs/common';
import { RequestValidationException } from '@dtp/service-kit';

/** A shipment the caller may not see answers exactly like an unknown id (no existence leak). */
export function shipmentNotFound(): NotFoundException {
  return new NotFoundException({ message: 'shipment not found' });
}

/** A 422 naming one body field. */
export function badField(field: string, msg: string, type: string): RequestValidationException {
  return new RequestValidationException([{ loc: ['body', field], msg, type }]);
}

/** 409 `{message, reason, ...extra}`. */
export function conflict(reason: string, message: string, extra: Record<string, unknown> = {}): ConflictException {
  return new ConflictException({ message, reason, ...extra });
}

/** Shortens a list of ids for a message (the full list travels in the body). */
export function idList(ids: string[], max = 10): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`;
}
