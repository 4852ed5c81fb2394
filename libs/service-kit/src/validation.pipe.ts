import { ArgumentMetadata, HttpStatus, Type, ValidationPipe } from '@nestjs/common';
import { inspect, isDeepStrictEqual } from 'node:util';
import { plainToDto, ValidationVerdict } from '@dtp/domain';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, ValidationError, ValidatorOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { arrayOverflow } from './array-bounds';
import { RequestValidationException, toValidationDetails } from './errors';
import { issueDetails, textScan } from './input-bounds';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
const CACHED = Symbol.for('dtp:class-validator-metadata-cache');

/**
 * class-validator looks up the rules of a class on every validation of every (nested) object, and that look-up
 * walks every class it knows (an `instanceof` per registered class, for inherited rules) and regroups the result
 * by property: about 3 look-ups per request for a body with one nested object, a visible part of a registration's
 * CPU. The answers only change when rules are registered (a class is declared), so they are kept per (class,
 * schema, options) and forgotten whenever class-validator's storage takes a new rule. Installed once per storage.
 */
export function cacheValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const patched = storage as MetadataStorage & { [CACHED]?: true };
  if (patched[CACHED]) return;
  patched[CACHED] = true;
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const addValidation = storage.addValidationMetadata.bind(storage);
  // Per target, per schema (undefined for the class's own rules, a class name for a nested value's), one slot per
  // combination of `always` and `strictGroups`: no key string built per look-up; with groups, a key string.
  let targets = new Map<Function | string, Map<string | undefined, ValidationMetadata[][]>>();
  let grouped = new Map<Function | string, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  storage.addValidationMetadata = (metadata: ValidationMetadata) => {
    targets = new Map();
    grouped = new Map();
    groupings = new WeakMap();
    addValidation(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups && groups.length > 0) {
      const key = JSON.stringify([schema, always, strictGroups, groups]);
      let perTarget = grouped.get(target);
      if (!perTarget) grouped.set(target, (perTarget = new Map()));
      let found = perTarget.get(key);
      if (!found) perTarget.set(key, (found = lookUp(target, schema, always, strictGroups, groups)));
      return found;
    }
    let perTarget = targets.get(target);
    if (!perTarget) targets.set(target, (perTarget = new Map()));
    let slots = perTarget.get(schema);
    if (!slots) perTarget.set(schema, (slots = []));
    const slot = (always ? 2 : 0) + (strictGroups ? 1 : 0);
    return (slots[slot] ??= lookUp(target, schema, always, strictGroups, groups));
  };
  storage.groupByPropertyName = (metadata: ValidationMetadata[]) => {
    let found = groupings.get(metadata);
    if (!found) groupings.set(metadata, (found = group(metadata)));
    return found;
  };
}
cacheValidationMetadata();

/**
 * Installed by the test setup (tools/testing/contract-setup.ts) through the global object, as the response contract
 * check is: every value the pipe validates in a test is also validated by class-validator, and a ValidationVerdict
 * that disagrees fails the test; every instance plainToDto makes is also made by class-transformer, and one that
 * differs fails the test. A running service has none.
 */
const VERDICT_CHECK = Symbol.for('dtp.validationVerdictCheck');
type VerdictCheck = (disagreement: { target: string; passes: boolean; errors: number } | { target: string; message: string }) => void;

/**
 * The global pipe: unknown fields rejected, payloads transformed to DTO classes, failures answered 422 with
 * `detail` entries located at `body`, `query` or `path`. Before any of that, every string and key of a body or
 * query is checked for NUL and lone surrogates (DESIGN.md "Input bounds"), each one named by its path, and
 * arrays longer than their `@ArrayMaxSize` are refused with a single entry (array-bounds.ts).
 */
export class ApiValidationPipe extends ValidationPipe {
  private readonly verdict = new ValidationVerdict();
  /** The options ValidationPipe.transform validates with (it builds them on every call). */
  private readonly transformValidatorOptions: ValidatorOptions;

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
    this.transformValidatorOptions = { ...this.validatorOptions, validationError: { target: false, ...this.validatorOptions.validationError } };
  }

  override async transform(value: unknown, metadata: ArgumentMetadata) {
    // A path parameter that is a string (its route's own pipe, e.g. PathIdPipe, checks its format) and a custom
    // decorator's value (the caller) have nothing to validate or transform: answered without ValidationPipe's work
    // on every read (it would hand back the same value).
    if (
      metadata.type === 'custom' ||
      (metadata.type === 'param' && typeof value === 'string' && (metadata.metatype === String || metadata.metatype === undefined))
    ) {
      return value;
    }
    let plain = false;
    if (metadata.type === 'body' || metadata.type === 'query') {
      const scan = textScan(value);
      const root = metadata.data ? [metadata.type, metadata.data] : [metadata.type];
      if (scan.issues.length > 0) throw new RequestValidationException(issueDetails(scan.issues, root));
      plain = scan.plain;
    }
    if (metadata.type === 'body' && metadata.metatype && !isPlainBody(value)) {
      throw new RequestValidationException([{ loc: ['body'], msg: 'Input should be a JSON object', type: value === undefined ? 'missing' : 'dict_type' }]);
    }
    if ((metadata.type === 'body' || metadata.type === 'query') && typeof metadata.metatype === 'function') {
      // Arrays past their @ArrayMaxSize are refused before class-transformer builds and class-validator checks
      // each item (array-bounds.ts): one entry, however long the array.
      const over = arrayOverflow(value, metadata.metatype, metadata.data ? [metadata.type, metadata.data] : [metadata.type]);
      if (over) throw new RequestValidationException([over]);
    }
    try {
      if (plain && isPlainBody(value) && this.toValidate(metadata)) return await this.transformParsed(value as object, metadata.metatype as Type<unknown>);
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof RequestValidationException && metadata.type !== 'body') {
        const root = metadata.type === 'param' ? 'path' : metadata.type;
        throw new RequestValidationException(err.details.map((d) => ({ ...d, loc: [root, ...d.loc.slice(1)] })));
      }
      throw err;
    }
  }

  /**
   * ValidationPipe.transform for an object made by JSON.parse or the query parser (scanJson's `plain`: no array with
   * holes, no bytes, nothing but plain objects, arrays, strings, numbers, booleans and null) and without reserved
   * keys (refused above), to be validated against a class: the same steps, less three walks over the value that such
   * a value cannot need, each a visible part of a registration's CPU (docs/platform.md "Performance"): closing
   * array holes, deleting `__proto__`/`prototype`/`constructor` members (reserved keys) and looking for nested
   * binary values; and its validator options, built on every call there, are built once.
   */
  private async transformParsed(value: object, metatype: Type<unknown>): Promise<unknown> {
    const entity = this.instanceOf(metatype, value) as { constructor?: unknown };
    const isCtorNotEqual = entity.constructor !== metatype;
    if (isCtorNotEqual) entity.constructor = metatype;
    const errors = await this.validate(entity, this.transformValidatorOptions);
    if (isCtorNotEqual) delete entity.constructor;
    if (errors.length > 0) {
      if (this.validatorOptions.validationError?.value === undefined) this.stripParentErrorValues(errors);
      throw await this.exceptionFactory(errors);
    }
    return entity; // transform is on (the constructor)
  }

  /**
   * class-transformer's instance of `metatype` made from `value` (plainToDto: the same instance, made without
   * class-transformer's per-member look-ups, a visible part of a registration's CPU), checked in tests.
   */
  private instanceOf(metatype: Type<unknown>, value: object): object {
    if (this.transformOptions !== undefined) return plainToInstance(metatype, value, this.transformOptions) as object;
    const made = plainToDto(metatype as Type<object>, value);
    const check = (globalThis as { [VERDICT_CHECK]?: VerdictCheck })[VERDICT_CHECK];
    if (check) {
      const reference = plainToInstance(metatype, value) as object;
      // inspect's text where isDeepStrictEqual finds two invalid Dates different (NaN).
      if (!isDeepStrictEqual(made, reference) && inspect(made, { depth: null }) !== inspect(reference, { depth: null })) {
        check({ target: metatype.name, message: `plainToDto made ${inspect(made, { depth: 4 })}, class-transformer ${inspect(reference, { depth: 4 })}` });
      }
    }
    return made;
  }

  /**
   * A value that certainly has no error (@dtp/domain validation-verdict.ts) is not validated again; any other is
   * validated by class-validator, which writes the errors.
   */
  protected override validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> | ValidationError[] {
    if (!options) return super.validate(object, options);
    const passes = this.verdict.passes(object, options);
    const check = (globalThis as { [VERDICT_CHECK]?: VerdictCheck })[VERDICT_CHECK];
    if (check) return this.checked(object, options, passes, check);
    return passes ? [] : super.validate(object, options);
  }

  /** Tests: class-validator validates every value, and a verdict that disagrees with it is reported. */
  private async checked(object: object, options: ValidatorOptions, passes: boolean, check: VerdictCheck): Promise<ValidationError[]> {
    const errors = await super.validate(object, options);
    if (passes !== (errors.length === 0)) check({ target: object.constructor?.name ?? typeof object, passes, errors: errors.length });
    return errors;
  }
}

function isPlainBody(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
