import { Decimal } from 'decimal.js';

/** Values the API accepts where it means a decimal: a JS number, decimal text or a Decimal. */
export type DecimalInput = number | string | Decimal;

/**
 * Plain decimal text as accepted in request bodies: digits, optionally a dot and more digits.
 * No sign, no exponent, no surrounding whitespace, no leading/trailing dot ("1.25", "0.5", "3").
 */
export const DECIMAL_TEXT_PATTERN = /^\d+(\.\d+)?$/;

/** True when `value` is a finite number or plain decimal text (see DECIMAL_TEXT_PATTERN). */
export function isDecimalValue(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && DECIMAL_TEXT_PATTERN.test(value);
}

/** Converts an accepted decimal value to Decimal (throws on anything else). */
export function toDecimal(value: DecimalInput): Decimal {
  if (value instanceof Decimal) return value;
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`not a finite number: ${value}`);
  }
  if (typeof value === 'string' && !/^-?\d+(\.\d+)?$/.test(value.trim())) {
    throw new TypeError(`not decimal text: ${JSON.stringify(value)}`);
  }
  // decimal.js reads a number through its shortest round-trip text: 1.02 -> "1.02" exactly.
  return new Decimal(typeof value === 'string' ? value.trim() : value);
}

/**
 * A finite number's shortest round-trip text when it has no exponent ("1.25", "3"), else undefined: the text
 * toDecimal reads for a number, and what the Decimal's toFixed writes back. No trailing zeros in its fraction.
 */
function plainNumberText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  return text.includes('e') ? undefined : text;
}

/**
 * Decimal places of an accepted decimal value, as `toDecimal(value).decimalPlaces()` counts them (trailing zeros of
 * text not counted: "1.500" has 1), without building the Decimal for a number written without exponent or for
 * decimal text (a carat weight's check on every registration).
 */
export function decimalPlaces(value: DecimalInput): number {
  const text = typeof value === 'number' ? plainNumberText(value) : typeof value === 'string' && DECIMAL_TEXT_PATTERN.test(value) ? value : undefined;
  if (text === undefined) return toDecimal(value).decimalPlaces();
  const dot = text.indexOf('.');
  if (dot < 0) return 0;
  let end = text.length;
  while (end > dot + 1 && text.charCodeAt(end - 1) === 48 /* 0 */) end -= 1;
  return end - dot - 1;
}

/**
 * The decimal text stored for a value (graded measurements, rough/polished carats). Decimal text as
 * given by the caller is kept verbatim ("1.50" stays "1.50"); numbers are written without exponent.
 */
export function toDecimalText(value: DecimalInput): string {
  if (typeof value === 'string' && DECIMAL_TEXT_PATTERN.test(value)) return value;
  return (typeof value === 'number' ? plainNumberText(value) : undefined) ?? toDecimal(value).toFixed();
}

/** |a - b| as decimal text, computed in decimal arithmetic. */
export function absDifference(a: DecimalInput, b: DecimalInput): string {
  return toDecimal(a).minus(toDecimal(b)).abs().toFixed();
}
