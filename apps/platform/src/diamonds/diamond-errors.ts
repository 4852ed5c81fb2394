import { ConflictError, ForbiddenError, NotFoundError } from '@dtp/domain';

/** A diamond id that does not exist (never registered, deleted, or not even in the id format). */
export function diamondNotFound(): NotFoundError {
  return new NotFoundError('diamond not found');
}

/**
 * A diamond that exists but that the caller may not act on: 403 naming the rule (DESIGN.md "Platform"). A
 * diamond's existence is public (search serves every record by id), so saying so protects nothing and tells an
 * integrator at once why the call failed. `action` completes "only the holder of diamond X may ...".
 */
export function notHolder(diamondId: string, action: string): ForbiddenError {
  return new ForbiddenError(`only the holder of diamond ${diamondId} may ${action}`, 'not_holder');
}

/**
 * A diamond in a shipment that has not been answered yet: it cannot be changed (files, unlock, graded
 * measurements, lifecycle moves), shipped again or deleted until the recipient accepts or rejects it.
 */
export function diamondInTransit(diamondId: string): ConflictError {
  return new ConflictError(
    `diamond ${diamondId} is in transit (in a shipment the recipient has not answered yet); it cannot be changed until the shipment is accepted or rejected`,
    'in_transit',
  );
}
