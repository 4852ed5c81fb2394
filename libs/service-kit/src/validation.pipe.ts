import { ArgumentMetadata, HttpStatus, ValidationPipe } from '@nestjs/common';
import { arrayOverflow } from './array-bounds';
import { RequestValidationException, toValidationDetails } from './errors';
import { issueDetails, textIssues } from './input-bounds';

/**
 * The global pipe: unknown fields rejected, payloads transformed to DTO classes, failures answered 422 with
 * `detail` entries located at `body`, `query` or `path`. Before any of that, every string and key of a body or
 * query is checked for NUL and lone surrogates (DESIGN.md "Input bounds"), each one named by its path, and
 * arrays longer than their `@ArrayMaxSize` are refused with a single entry (array-bounds.ts).
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      errorHttpStatusCode: HttpStatus.UNPROCESSABLE_ENTITY,
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => new RequestValidationException(toValidationDetails(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata) {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const issues = textIssues(value);
      const root = metadata.data ? [metadata.type, metadata.data] : [metadata.type];
      if (issues.length > 0) throw new RequestValidationException(issueDetails(issues, root));
    }
    if (metadata.type === 'body' && metadata.metatype && !isPlainBody(value)) {
      throw new RequestValidationException([
        { loc: ['body'], msg: 'Input should be a JSON object', type: value === undefined ? 'missing' : 'dict_type' },
      ]);
    }
    if ((metadata.type === 'body' || metadata.type === 'query') && typeof metadata.metatype === 'function') {
      // Arrays past their @ArrayMaxSize are refused before class-transformer builds and class-validator checks
      // each item (array-bounds.ts): one entry, however long the array.
      const over = arrayOverflow(value, metadata.metatype, metadata.data ? [metadata.type, metadata.data] : [metadata.type]);
      if (over) throw new RequestValidationException([over]);
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof RequestValidationException && metadata.type !== 'body') {
        const root = metadata.type === 'param' ? 'path' : metadata.type;
        throw new RequestValidationException(err.details.map((d) => ({ ...d, loc: [root, ...d.loc.slice(1)] })));
      }
      throw err;
    }
  }
}

function isPlainBody(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
