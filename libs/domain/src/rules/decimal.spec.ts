import { Decimal } from 'decimal.js';
import { absDifference, isDecimalValue, toDecimal, toDecimalText } from './decimal';

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

  it('absDifference is exact', () => {
    expect(absDifference('1.00', '1.02')).toBe('0.02');
    expect(absDifference(1.02, 1)).toBe('0.02');
    expect(absDifference(0.1 + 0.2, 0.3)).toBe('0.00000000000000004');
    expect(absDifference('6.5', '6.5')).toBe('0');
  });
});
