import { ConflictException, NotFoundException } from '@nestjs/common';

/**
 * The one answer for a diamond the caller may not see: it does not exist, or it is not the caller's. The two
 * are indistinguishable on purpose, so nobody learns that another participant's diamond exists.
 */
export function diamondNotFound(): NotFoundException {
  return new NotFoundException({ message: 'diamond not found' });
}

/**
 * A diamond in a shipment that has not been answered yet: it cannot be changed (files, unlock, graded
 * measurements, lifecycle moves), shipped again or deleted until the recipient accepts or rejects it.
 */
export function diamondInTransit(diamondId: string): ConflictException {
  return new ConflictException({
    message: `diamond ${diamondId} is in transit (in a shipment the recipient has not answered yet); it cannot be changed until the shipment is accepted or rejected`,
    reason: 'in_transit',
  });
}
