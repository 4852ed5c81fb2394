import { Decimal } from 'decimal.js';
import { absDifference, decimalPlaces, isDecimalValue, toDecimal, toDecimalText } from './decimal';

describe('decimal helpers', () => {
  it('isDecimalValue accepts finite numbers and plain decimal text only', () => {
    expect([1, 0, -2.5, '1.25', '7'].map(isDecimalValue)).toEqual([true, true, true, true, true]);
    expect([NaN, Infinity, '1e5', ' 1', '-1', '', 'abc', true, null].map(isDecimalValue)).toEqual(Array(9).fill(false));
  });

  it('toDecimalText keeps caller text and writes numbers without exponent', () => {
    expect(toDecimalText('1.50')).toBe('1.50');
    expect(toDecimalText(1.5)).toBe('1.5');
    expect(toDecimalText(1e21)).toBe('1000000000000000000000');
    expect(toDecimalText(5e-7)).toBe('0.0000005');
    expect(toDecimalText(new Decimal('2.000'))).toBe('2');
  });

  it('toDecimal reads numbers through their shortest text and rejects junk', () => {
    expect(toDecimal(1.02).toFixed()).toBe('1.02');
    expect(() => toDecimal(NaN)).toThrow(TypeError);
    expect(() => toDecimal('1e5')).toThrow(TypeError);
    expect(() => toDecimal('abc')).toThrow(TypeError);
  });

  it('decimalPlaces counts as Decimal does, and toDecimalText writes what its toFixed writes, for numbers, decimal text and Decimals', () => {
    const values: (number | string | Decimal)[] = [
      0,
      1,
      3,
      1.25,
      0.1,
      0.125,
      1.0005,
      99999.999,
      100000.001,
      0.1 + 0.2,
      1e21,
      1.5e21,
      1e-7,
      1.25e-7,
      5e-324,
      123456789.123,
      -2.5,
      Number.MAX_SAFE_INTEGER,
      2 ** 60 + 0.5,
      '0',
      '1',
      '1.0',
      '1.500',
      '1.250',
      '0.000',
      '00012.3400',
      '99999.999',
      '1.0001',
      '12345678901234567890.123456789',
      new Decimal('2.000'),
    ];
    for (let i = 1; i <= 2000; i++) values.push(((i * 7919) % 10_000_000) / 10 ** (i % 8), i / 7, `${i}.${'0'.repeat(i % 4)}${i % 10}${'0'.repeat(i % 3)}`);
    for (const v of values) expect([v, decimalPlaces(v)]).toEqual([v, toDecimal(v).decimalPlaces()]);
    // text is kept as the caller wrote it (above); numbers and Decimals are written as decimal.js writes them
    for (const v of [...values, -0, -1.5, 1e-6, 1.5e-6, 123e20, 1e20].filter((x) => typeof x !== 'string')) {
      expect([v, toDecimalText(v)]).toEqual([v, toDecimal(v).toFixed()]);
    }
    expect(decimalPlaces('1.500')).toBe(1);
    expect(decimalPlaces(1e-7)).toBe(7);
  });

  it('absDifference is exact', () => {
    expect(absDifference('1.00', '1.02')).toBe('0.02');
    expect(absDifference(1.02, 1)).toBe('0.02');
    expect(absDifference(0.1 + 0.2, 0.3)).toBe('0.00000000000000004');
    expect(absDifference('6.5', '6.5')).toBe('0');
  });
});
