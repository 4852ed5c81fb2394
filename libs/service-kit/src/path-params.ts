import { NotFoundException, PipeTransform } from '@nestjs/common';

/**
 * A path parameter that names something by id, checked for its format before any query (DESIGN.md "Input
 * bounds"): a value out of format (NUL or control characters, traversal, quotes, over-long values, the wrong
 * alphabet) answers the route's own 404 body, exactly as an unknown id would, and never reaches the database.
 *
 *   `@Param('diamond_id', new PathIdPipe(isDiamondId, { message: 'diamond not found' }))`
 *
 * `canonical` first writes the value in the form ids are stored in, for ids that may be written more than one way:
 * a UUID, which RFC 9562 says is case-insensitive on input, is looked up lowercased (`canonicalUuid`).
 */
export class PathIdPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly accepts: (value: string) => boolean,
    private readonly notFoundBody: Record<string, unknown>,
    private readonly canonical: (value: string) => string = (value) => value,
  ) {}

  transform(value: unknown): string {
    const id = typeof value === 'string' ? this.canonical(value) : undefined;
    if (id === undefined || !this.accepts(id)) throw new NotFoundException(this.notFoundBody);
    return id;
  }
}
