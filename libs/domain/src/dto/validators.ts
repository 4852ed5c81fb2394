import { IsISO8601, isISO8601, ValidateIf, ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';
import { DECIMAL_TEXT_PATTERN, decimalPlaces, toDecimal } from '../rules/decimal';
import { isDiamondId } from '../rules/ids';
import { isCalendarDateTime } from './validation-verdict';
import { CARATS_MAX, CARATS_MAX_DECIMALS, TAGS_MAX_BYTES, TAGS_MAX_DEPTH } from '../rules/limits';

/**
 * Custom class-validator decorators shared by the DTOs. Each one names the field and the reason in
 * its default message. They reject null/undefined themselves, so combine them with @IsOptional()
 * where the field may be absent or null.
 */

/** Longest decimal text accepted (digits and a dot): far beyond any measurement, short enough to be harmless. */
const DECIMAL_TEXT_MAX_LENGTH = 40;

/**
 * True for a finite number, or decimal text (DECIMAL_TEXT_PATTERN, at most DECIMAL_TEXT_MAX_LENGTH long), greater
 * than 0 (or equal to it, `allowZero`). Compared without a Decimal: a number's Decimal (the number's shortest
 * round-trip text) has the number's sign, -0 included (not > 0, >= 0); decimal text has no sign, so it is >= 0, and
 * > 0 exactly when one of its digits is not 0.
 */
function decimalCheck(value: unknown, allowZero: boolean): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && (allowZero ? value >= 0 : value > 0);
  if (typeof value !== 'string' || value.length > DECIMAL_TEXT_MAX_LENGTH || !DECIMAL_TEXT_PATTERN.test(value)) return false;
  return allowZero || NON_ZERO_DIGIT.test(value);
}
const NON_ZERO_DIGIT = /[1-9]/;

/** Why a value is not a positive decimal (decimalCheck), as IsPositiveDecimal and a carat weight say it. */
const NOT_POSITIVE_DECIMAL = 'must be a number greater than 0 or decimal text such as "1.25"';

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
        message: (a: ValidationArguments) => `${a.property} ${NOT_POSITIVE_DECIMAL}`,
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
        message: (a: ValidationArguments) => `${a.property} must be a number greater than or equal to 0 or decimal text such as "1.25"`,
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
        message: (a: ValidationArguments) => `${a.property} must be a diamond id (20 to 98 lowercase letters and digits)`,
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
          isPlainObject(a.value) ? `${a.property}.dit_session_id must be a string or null` : `${a.property} must be an object`,
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
        validate: (value: unknown) => isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string'),
      },
    });
}

/** ISO 8601 date-time text, with calendar checks (rejects 2023-02-30). */
export function IsIsoDateTime(options?: ValidationOptions): PropertyDecorator {
  return IsISO8601({ strict: true }, { message: (a: ValidationArguments) => `${a.property} must be an ISO 8601 date-time string`, ...options });
}

/**
 * The ISO 8601 date-time texts a request may carry where the text is kept as sent: a calendar date in the extended
 * form, then optionally `T` (or a space) and the time to the minute or finer (a `.` before the fraction), then
 * optionally its zone (`Z`, `±hh:mm` or `±hhmm`). ISO 8601's other forms (a week or ordinal date, the basic format,
 * a bare year or month, an hour alone, a `,` before the fraction) are not what "date-time" means to the readers of a
 * record: JavaScript's Date, for one, reads none of them.
 */
const CALENDAR_DATE_TIME_TEXT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A date-time a request member keeps as sent (CALENDAR_DATE_TIME_TEXT) that validator's strict ISO 8601 check also
 * takes (the day exists in its month, the hours and minutes are in range). Calendar text in the common form is
 * answered by isCalendarDateTime, which validator's check always agrees with, without asking it.
 */
export function IsCalendarDateTime(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCalendarDateTime',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          `${a.property} must be an ISO 8601 date-time string such as 2024-05-01T10:00:00Z (a calendar date, optionally with a time and zone)`,
        ...options,
      },
      validator: { validate: isCalendarDateTimeText },
    });
}

export function isCalendarDateTimeText(value: unknown): boolean {
  return typeof value === 'string' && (isCalendarDateTime(value) || (CALENDAR_DATE_TIME_TEXT.test(value) && isISO8601(value, { strict: true })));
}

/**
 * RFC 3339 date-time with a time zone (`Z` or `±hh:mm`; seconds and their fraction optional): an instant, not a local
 * time, so every reader takes the same moment from it whatever its own time zone.
 */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A moment the service compares with others (not text kept as sent): a calendar date (`2021-05-01`, midnight UTC) or
 * a date-time with a time zone (INSTANT_PATTERN), on a day that exists, year 1000 to 9999. Other ISO 8601 forms
 * (a week or ordinal date, a bare year, the basic format, a time without a zone, whose moment would depend on the
 * server's time zone) are refused: JavaScript's Date reads none of them, or reads them in local time.
 */
export function IsInstantOrDate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isInstantOrDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) =>
          `${a.property} must be a date (e.g. 2021-05-01, midnight UTC) or a date-time with a time zone (e.g. 2021-05-01T09:30:00Z)`,
        ...options,
      },
      validator: { validate: isInstantOrDate },
    });
}

export function isInstantOrDate(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    (DATE_PATTERN.test(value) || INSTANT_PATTERN.test(value)) &&
    isCalendarDateTime(value.slice(0, 10)) &&
    Number.isFinite(Date.parse(value))
  );
}

/**
 * Optional but not nullable: the field may be absent; when present (even null) it is validated.
 * (class-validator's @IsOptional() would also let null through.)
 */
export function IsOptionalNonNull(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined, options);
}

/**
 * The bounds of a carat weight past being a positive decimal, in the order they are told: at most CARATS_MAX (a number
 * is compared as it is: CARATS_MAX is a whole number a double holds exactly, and rounding to the nearest double keeps
 * order, so the number's Decimal is above it exactly when the number is), and at most CARATS_MAX_DECIMALS places.
 */
const CARAT_BOUNDS: { name: string; broken: (value: number | string) => boolean; text: string }[] = [
  {
    name: 'max',
    broken: (v) => (typeof v === 'number' ? v > CARATS_MAX : wholePartAbove(v, CARATS_MAX)),
    text: `must be at most ${CARATS_MAX}`,
  },
  {
    name: 'decimalMaxPlaces',
    broken: (v) => decimalPlaces(v) > CARATS_MAX_DECIMALS,
    text: `must have at most ${CARATS_MAX_DECIMALS} decimal places`,
  },
];

/**
 * Whether decimal text is above `max` (a whole number): read from its whole part when that part has at most 15
 * digits (a double holds it exactly; the fraction is below 1, so a whole part under `max` is under it and one above is
 * above it), else, or when the whole part equals `max`, in decimal arithmetic.
 */
function wholePartAbove(text: string, max: number): boolean {
  const dot = text.indexOf('.');
  const digits = dot < 0 ? text.length : dot;
  if (digits <= 15) {
    const whole = Number(text.slice(0, digits));
    if (whole < max) return false;
    if (whole > max) return true;
  }
  return toDecimal(text).gt(max);
}

/** Why a carat weight is refused, or null when it is fine (> 0, <= CARATS_MAX, <= CARATS_MAX_DECIMALS places). */
export function caratWeightProblem(value: unknown): string | null {
  if (!decimalCheck(value, false)) return NOT_POSITIVE_DECIMAL;
  return CARAT_BOUNDS.find((b) => b.broken(value as number | string))?.text ?? null;
}

/** One bound of a carat weight; values that are not positive decimals pass (IsPositiveDecimal reports them). */
function caratBound({ name, broken, text }: (typeof CARAT_BOUNDS)[number]): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (a: ValidationArguments) => `${a.property} ${text}` },
      validator: { validate: (value: unknown) => !decimalCheck(value, false) || !broken(value as number | string) },
    });
}

/**
 * A carat weight: a number or decimal text greater than 0 (IsPositiveDecimal, type `is_positive_decimal`), at most
 * CARATS_MAX = 100,000 (type `less_than_equal`) with at most CARATS_MAX_DECIMALS = 3 decimal places (type
 * `decimal_max_places`): "1.25", 0.5, "3.001".
 */
export function IsCaratWeight(): PropertyDecorator {
  const decorators = [IsPositiveDecimal(), ...CARAT_BOUNDS.map(caratBound)];
  return (target: object, key: string | symbol) => decorators.forEach((d) => d(target, key));
}

/* ----------------------------------------------------------------------------------------------------------
 * Bounded JSON: an iterative (never recursive) walk over a parsed JSON value, so that a hostile value nested
 * 100,000 levels deep is measured without exhausting the stack, BEFORE class-transformer or class-validator
 * (both recursive) touch it. Used by the service kit (request bodies), the event consumers (message payloads)
 * and the tag validators below.
 * -------------------------------------------------------------------------------------------------------- */

export type JsonPath = (string | number)[];

export interface JsonScanIssue {
  /**
   * `too_deep`: nested past maxDepth; `too_large`: past maxBytes; `invalid_text`: NUL or a lone surrogate;
   * `reserved_key`: a key in RESERVED_KEYS.
   */
  kind: 'too_deep' | 'too_large' | 'invalid_text' | 'reserved_key';
  /** Where, from the scanned value (keys and array indices); for invalid_text in a key, the key itself. */
  path: JsonPath;
  message: string;
}

export interface JsonScanOptions {
  /** Deepest nesting of objects/arrays allowed (the value itself, when a container, is level 1). */
  maxDepth?: number;
  /** Largest approximate JSON size in bytes (UTF-8 of strings and keys plus punctuation). */
  maxBytes?: number;
  /** Report strings and keys holding NUL (U+0000) or a lone surrogate. */
  checkText?: boolean;
  /** Report keys in RESERVED_KEYS. */
  reservedKeys?: boolean;
  /**
   * Report (as `reserved_key`) only the keys JSON body parsers refuse against prototype pollution: `__proto__`, and
   * `prototype` in a member named `constructor`.
   */
  pollutingKeys?: boolean;
  /** Stop after this many issues (default 50). */
  maxIssues?: number;
  /**
   * Tell whether the value is made of what JSON.parse makes only (`plain` in the result): objects whose prototype is
   * Object.prototype or null, arrays without holes, strings, numbers, booleans and null.
   */
  checkPlain?: boolean;
}

export interface JsonScanResult {
  issues: JsonScanIssue[];
  /** Deepest nesting seen (stops growing at maxDepth + 1 on the branch that went past it). */
  depth: number;
  /**
   * Approximate JSON size in bytes of what was walked (stops at maxBytes + something when exceeded); counted only
   * when maxBytes is given (0 otherwise: measuring every string's UTF-8 length is most of a walk's cost).
   */
  bytes: number;
  /**
   * With checkPlain: true when everything walked is what JSON.parse makes (see checkPlain); false otherwise, and
   * whenever the walk stopped early (an issue, maxDepth, maxBytes) or checkPlain was not asked.
   */
  plain: boolean;
}

/** Why a string is refused (NUL or a lone UTF-16 surrogate), or null. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  const wellFormed = (s as string & { isWellFormed?: () => boolean }).isWellFormed;
  const ok = wellFormed ? wellFormed.call(s) : !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
  return ok ? null : 'must not contain a lone surrogate (invalid Unicode)';
}

interface ScanFrame {
  value: unknown;
  depth: number;
  parent: ScanFrame | null;
  key: string | number | null;
}

function framePath(frame: ScanFrame | null): JsonPath {
  const path: JsonPath = [];
  for (let f = frame; f && f.key !== null; f = f.parent) path.push(f.key);
  return path.reverse();
}

/**
 * Keys a request body or query may not hold (an input bound besides DESIGN.md's; docs/platform.md): the names every
 * JavaScript object already has (`constructor`, `toString`, `hasOwnProperty`, `__proto__`, ...) and `prototype`. On
 * their way to a handler the framework drops them without a word: Nest's ValidationPipe deletes `constructor` and
 * `prototype` (against prototype pollution), and class-transformer leaves out any member whose name is a method the
 * new object inherits. Free-form members (tags) would lose them and an unknown member of that name would pass
 * unnoticed; so they are refused, each named, instead.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * Walks a parsed JSON value iteratively (an explicit stack: constant native stack whatever the nesting) and
 * reports what exceeds the bounds, each with its path. A branch nested past `maxDepth` is not descended further,
 * and the walk stops at `maxBytes`, so the cost is bounded by the limits, not by the input.
 */
export function scanJson(value: unknown, opts: JsonScanOptions = {}): JsonScanResult {
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY;
  const maxIssues = opts.maxIssues ?? 50;
  const measure = maxBytes !== Number.POSITIVE_INFINITY;
  const checkPlain = opts.checkPlain === true;
  let plain = checkPlain;
  const issues: JsonScanIssue[] = [];
  let bytes = 0;
  let deepest = 0;
  const stack: ScanFrame[] = [{ value, depth: 0, parent: null, key: null }];
  const text = (s: string, frame: ScanFrame, isKey: boolean) => {
    if (measure) bytes += Buffer.byteLength(s, 'utf8') + 2;
    if (!opts.checkText || issues.length >= maxIssues) return;
    const problem = textProblem(s);
    if (problem) issues.push({ kind: 'invalid_text', path: framePath(frame), message: isKey ? `key ${problem}` : problem });
  };
  while (stack.length > 0 && issues.length < maxIssues) {
    const frame = stack.pop()!;
    const v = frame.value;
    // An object member's key is checked with its value, so issues come in document order.
    if (typeof frame.key === 'string') {
      if (
        opts.reservedKeys
          ? RESERVED_KEYS.has(frame.key)
          : opts.pollutingKeys && (frame.key === '__proto__' || (frame.key === 'prototype' && frame.parent?.key === 'constructor'))
      ) {
        issues.push({
          kind: 'reserved_key',
          path: framePath(frame),
          message: `key ${JSON.stringify(frame.key)} is reserved (a name every JavaScript object has) and not accepted`,
        });
        if (issues.length >= maxIssues) break;
      }
      text(frame.key, frame, true);
    }
    if (typeof v === 'string') text(v, frame, false);
    else if (typeof v === 'number') {
      if (measure) bytes += String(v).length;
    } else if (typeof v === 'boolean') {
      if (measure) bytes += v ? 4 : 5;
    } else if (v === null) {
      if (measure) bytes += 4;
    } else if (v === undefined || typeof v === 'bigint') {
      // Not JSON: measured as their nearest JSON text.
      plain = false;
      if (measure) bytes += v === undefined ? 4 : String(v).length;
    } else if (typeof v === 'object') {
      const depth = frame.depth + 1;
      deepest = Math.max(deepest, depth);
      if (depth > maxDepth) {
        issues.push({ kind: 'too_deep', path: framePath(frame), message: `nested more than ${maxDepth} levels deep` });
        continue;
      }
      if (measure) bytes += 2;
      if (Array.isArray(v)) {
        if (measure) bytes += Math.max(0, v.length - 1);
        for (let i = v.length - 1; i >= 0; i -= 1) {
          if (checkPlain && !(i in v)) plain = false;
          stack.push({ value: v[i], depth, parent: frame, key: i });
        }
      } else {
        if (checkPlain) {
          const proto: unknown = Object.getPrototypeOf(v);
          if (proto !== Object.prototype && proto !== null) plain = false;
        }
        const keys = Object.keys(v);
        if (measure) bytes += Math.max(0, keys.length - 1) + keys.length;
        for (let i = keys.length - 1; i >= 0; i -= 1) {
          stack.push({ value: (v as Record<string, unknown>)[keys[i]], depth, parent: frame, key: keys[i] });
        }
      }
    } else plain = false; // a function or a symbol
    if (bytes > maxBytes) {
      issues.push({ kind: 'too_large', path: [], message: `larger than ${maxBytes} bytes as JSON` });
      break;
    }
  }
  return { issues, depth: deepest, bytes, plain: plain && issues.length === 0 && stack.length === 0 };
}

/**
 * A free-form JSON object (tags): a plain object of at most `maxBytes` bytes serialized (default TAGS_MAX_BYTES,
 * 16 KiB) nested at most `maxDepth` levels (default TAGS_MAX_DEPTH, the object itself being level 1). Measured
 * iteratively; the message names the field and the bound it broke. With `requireObject: false` a value that is
 * not an object passes (another decorator on the member reports that).
 */
export function IsBoundedJsonObject(
  bounds: { maxBytes?: number; maxDepth?: number; requireObject?: boolean } = {},
  options?: ValidationOptions,
): PropertyDecorator {
  const maxBytes = bounds.maxBytes ?? TAGS_MAX_BYTES;
  const maxDepth = bounds.maxDepth ?? TAGS_MAX_DEPTH;
  const problem = (value: unknown): string | null => {
    if (!isPlainObject(value)) return bounds.requireObject === false ? null : 'must be an object';
    const scan = scanJson(value, { maxDepth, maxBytes, maxIssues: 1 });
    const issue = scan.issues[0];
    if (!issue) return null;
    if (issue.kind === 'too_deep') return `must be nested at most ${maxDepth} levels deep`;
    return `must be at most ${maxBytes} bytes as JSON`;
  };
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isBoundedJsonObject',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: (a: ValidationArguments) => `${a.property} ${problem(a.value) ?? 'is not a valid object'}`, ...options },
      validator: { validate: (value: unknown) => problem(value) === null },
    });
}

/** Strings without NUL and without lone surrogates (DESIGN.md "Input bounds"). Non-strings pass. */
export function IsWellFormedText(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isWellFormedText',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: (a: ValidationArguments) => `${a.property} ${typeof a.value === 'string' ? (textProblem(a.value) ?? 'is invalid') : 'is invalid'}`,
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || textProblem(value) === null },
    });
}
