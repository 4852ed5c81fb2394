import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { inspect, isDeepStrictEqual } from 'node:util';
import { plainToDto } from './plain-to-dto';
import { toValidationDetail } from './validation-detail';
import { ValidationVerdict } from './validation-verdict';

const verdict = new ValidationVerdict();

/**
 * Test helpers (not exported from the library): validate a plain body the way the services' global
 * ValidationPipe does (transform, whitelist, forbidNonWhitelisted).
 */
export function validatePlain<T extends object>(cls: ClassConstructor<T>, plain: unknown) {
  const instance = plainToInstance(cls, plain) as T;
  // And of plainToDto (the global pipe's short cut for class-transformer): it must make exactly the same instance.
  const built = plainToDto(cls, plain);
  if (!isDeepStrictEqual(built, instance)) {
    throw new Error(`plainToDto made another ${cls.name} than class-transformer: ${inspect(built, { depth: 6 })} for ${JSON.stringify(plain)}`);
  }
  const options = { whitelist: true, forbidNonWhitelisted: true };
  const errors = validateSync(instance, options);
  // Every body a DTO test validates is also a test of ValidationVerdict (the global pipe's short cut): it must pass
  // exactly the bodies class-validator finds nothing in.
  const passes = verdict.passes(instance, options);
  if (passes !== (errors.length === 0)) {
    throw new Error(`ValidationVerdict says ${passes ? 'passes' : 'fails'} where class-validator finds ${errors.length} error(s): ${JSON.stringify(plain)}`);
  }
  return { instance, errors, detail: toValidationDetail(errors, []) };
}

/** Dotted paths of the failed fields, de-duplicated, e.g. ['rough.carats']. */
export function failedPaths<T extends object>(cls: ClassConstructor<T>, plain: unknown): string[] {
  return [...new Set(validatePlain(cls, plain).detail.map((d) => d.loc.join('.')))];
}

/** All messages, for asserting on wording. */
export function messages<T extends object>(cls: ClassConstructor<T>, plain: unknown): string[] {
  return validatePlain(cls, plain).detail.map((d) => d.msg);
}

/** A copy of `base` with `key` replaced (or removed when value is the REMOVE marker). */
export const REMOVE = Symbol('remove');
export function withField<T extends object>(base: T, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  if (value === REMOVE) delete copy[key];
  else copy[key] = value;
  return copy;
}
