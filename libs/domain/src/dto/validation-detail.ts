import type { ValidationError } from 'class-validator';

/** One entry of a 422 body `{"detail": [{loc, msg, type}]}` (DESIGN.md "Platform: errors"). */
export interface ValidationDetailItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The `msg` of a field no schema has (`type` `extra_forbidden`); the field itself is named by `loc`. */
export const EXTRA_FIELD_MSG = 'extra fields not permitted';

/** FastAPI-style error types for the class-validator constraints that have a well-known equivalent. */
const TYPE_BY_CONSTRAINT: Record<string, string> = {
  whitelistValidation: 'extra_forbidden',
  isDefined: 'missing',
  isNotEmpty: 'missing',
  isString: 'string_type',
  isInt: 'int_type',
  isNumber: 'number_type',
  isBoolean: 'bool_type',
  isObject: 'dict_type',
  isArray: 'list_type',
  isEnum: 'enum',
  isIn: 'enum',
  isIso8601: 'datetime_parsing',
  isDateString: 'datetime_parsing',
  isInstantOrDate: 'datetime_parsing',
  isCalendarDateTime: 'datetime_parsing',
  arrayMaxSize: 'too_long',
  arrayMinSize: 'too_short',
  maxLength: 'string_too_long',
  minLength: 'string_too_short',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  matches: 'string_pattern_mismatch',
  nestedValidation: 'model_type',
};

/**
 * The constraints that say what kind of value a member takes (text, integer, number, boolean, object, list). A value
 * of another kind fails the checks that presume that kind too (a `null` description is not "longer than 1000
 * characters", a repeated query parameter is not "shorter than 1 character"), so where one of these fails, only
 * these are listed (and not `nestedValidation`'s "must be either object or array" beside `isObject`'s "must be an
 * object", nor `isDefined`'s "should not be null" for a `null`).
 */
const TYPE_CONSTRAINTS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isArray']);

/** `isPositiveDecimal` → `is_positive_decimal` for constraints without a FastAPI equivalent. */
export function validationErrorType(constraint: string): string {
  return TYPE_BY_CONSTRAINT[constraint] ?? constraint.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

/**
 * Flattens class-validator errors into `detail` entries, one per failed constraint, with `loc` the path
 * to the field (array indices as numbers), prefixed with `root` (e.g. ['body'] or ['query']). A required member
 * (`@IsDefined`) that is absent gets its one `missing` entry: the checks of its value (integer, minimum...) have
 * nothing to say about a value that is not there. A value of the wrong kind gets only its kind's entries
 * (TYPE_CONSTRAINTS): the checks of length, size, range or pattern presume the kind.
 */
export function toValidationDetail(errors: readonly ValidationError[], root: (string | number)[] = ['body']): ValidationDetailItem[] {
  const out: ValidationDetailItem[] = [];
  const walk = (list: readonly ValidationError[], path: (string | number)[]) => {
    for (const error of list) {
      const key = /^\d+$/.test(error.property) ? Number(error.property) : error.property;
      const loc = [...path, key];
      const constraints = error.constraints ?? {};
      const absent = error.value === undefined && constraints.isDefined !== undefined;
      const failed = Object.entries(absent ? { isDefined: constraints.isDefined } : constraints);
      const wrongKind = failed.filter(([constraint]) => TYPE_CONSTRAINTS.has(constraint));
      for (const [constraint, msg] of wrongKind.length > 0 ? wrongKind : failed) {
        const message = constraint === 'whitelistValidation' ? EXTRA_FIELD_MSG : msg;
        out.push({ loc, msg: message, type: validationErrorType(constraint) });
      }
      if (error.children?.length) walk(error.children, loc);
    }
  };
  walk(errors, root);
  return out;
}
