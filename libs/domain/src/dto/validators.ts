import {
  IsISO8601,
  ValidateIf,
  ValidationArguments,
  ValidationOptions,
  registerDecorator,
} from 'class-validator';
import { DECIMAL_TEXT_PATTERN, toDecimal } from '../rules/decimal';
import { isDiamondId } from '../rules/ids';

/**
 * Custom class-validator decorators shared by the DTOs. Each one names the field and the reason in
 * its default message. They reject null/undefined themselves, so combine them with @IsOptional()
 * where the field may be absent or null.
 */

function decimalCheck(value: unknown, allowZero: boolean): boolean {
  let ok: boolean;
  if (typeof value === 'number') ok = Number.isFinite(value);
  else ok = typeof value === 'string' && DECIMAL_TEXT_PATTERN.test(value);
  if (!ok) return false;
  const d = toDecimal(value as number | string);
  return allowZero ? d.gte(0) : d.gt(0);
}

/**
 * A number greater than 0, or plain decimal text greater than 0 ("1.25", "3"). Rejects booleans,
 * NaN, Infinity, signs, exponents ("1e5"), whitespace and text such as "abc".
 */
export function IsPositiveDecimal(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isPositiveDecimal',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          `${a.property} must be a number greater than 0 or decimal text such as "1.25"`,
        ...options,
      },
      validator: { validate: (value: unknown) => decimalCheck(value, false) },
    });
}

/** Like IsPositiveDecimal but 0 is allowed. */
export function IsNonNegativeDecimal(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isNonNegativeDecimal',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          `${a.property} must be a number greater than or equal to 0 or decimal text such as "1.25"`,
        ...options,
      },
      validator: { validate: (value: unknown) => decimalCheck(value, true) },
    });
}

/** A string without leading or trailing whitespace. Non-strings pass (pair it with @IsString()). */
export function NoSurroundingWhitespace(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'noSurroundingWhitespace',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) => `${a.property} must not have leading or trailing whitespace`,
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || value.trim() === value },
    });
}

/** A platform diamond id: 20 to 98 lowercase letters and digits. */
export function IsDiamondIdFormat(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isDiamondId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          `${a.property} must be a diamond id (20 to 98 lowercase letters and digits)`,
        ...options,
      },
      validator: { validate: (value: unknown) => isDiamondId(value) },
    });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `entity_specific_tags`: an object whose extra keys are free, and whose known key `dit_session_id`,
 * when present, is a string or null.
 */
export function IsEntitySpecificTags(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isEntitySpecificTags',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          isPlainObject(a.value)
            ? `${a.property}.dit_session_id must be a string or null`
            : `${a.property} must be an object`,
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (!isPlainObject(value)) return false;
          const dit = value['dit_session_id'];
          return dit === undefined || dit === null || typeof dit === 'string';
        },
      },
    });
}

/** A JSON object (not an array, not null). */
export function IsPlainObject(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isPlainObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (a: ValidationArguments) => `${a.property} must be an object`, ...options },
      validator: { validate: (value: unknown) => isPlainObject(value) },
    });
}

/** A map from string to string (e.g. `supplementary_files`). */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) => `${a.property} must be an object whose values are strings`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string'),
      },
    });
}

/** ISO 8601 date-time text, with calendar checks (rejects 2023-02-30). */
export function IsIsoDateTime(options?: ValidationOptions): PropertyDecorator {
  return IsISO8601(
    { strict: true },
    { message: (a: ValidationArguments) => `${a.property} must be an ISO 8601 date-time string`, ...options },
  );
}

/**
 * Optional but not nullable: the field may be absent; when present (even null) it is validated.
 * (class-validator's @IsOptional() would also let null through.)
 */
export function IsOptionalNonNull(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined, options);
}
