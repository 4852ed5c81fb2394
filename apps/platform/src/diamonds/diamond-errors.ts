import { NotFoundException } from '@nestjs/common';

/**
 * The one answer for a diamond the caller may not see: it does not exist, or it is not the caller's. The two
 * are indistinguishable on purpose, so nobody learns that another participant's diamond exists.
 */
export function diamondNotFound(): NotFoundException {
  return new NotFoundException({ message: 'diamond not found' });
}
