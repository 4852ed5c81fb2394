import { NotFoundException, PipeTransform } from '@nestjs/common';

/**
 * A path parameter that names something by id, checked for its format before any query (DESIGN.md "Input
 * bounds"): a value out of format (NUL or control characters, traversal, quotes, over-long values, the wrong
 * alphabet) answers the route's own 404 body, exactly as an unknown id would, and never reaches the database.
 *
 *   `@Param('diamond_id', new PathIdPipe(isDiamondId, { message: 'diamond not found' }))`
 */
export class PathIdPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly accepts: (value: string) => boolean,
    private readonly notFoundBody: Record<string, unknown>,
  ) {}

  transform(value: unknown): string {
    if (typeof value !== 'string' || !this.accepts(value)) throw new NotFoundException(this.notFoundBody);
    return value;
  }
}
