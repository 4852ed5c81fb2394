import {
  caratWeightProblem,
  IsCaratWeight,
  IsDiamondIdFormat,
  IsEntitySpecificTags,
  IsCalendarDateTime,
  IsInstantOrDate,
  IsIsoDateTime,
  IsNonNegativeDecimal,
  IsOptionalNonNull,
  IsPlainObject,
  IsPositiveDecimal,
  IsStringMap,
  NoSurroundingWhitespace,
} from './validators';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { CARATS_MAX } from '../rules/limits';
import { failedPaths, messages } from './spec-helpers';

class Probe {
  @IsPositiveDecimal() positive!: unknown;
  @IsNonNegativeDecimal() non_negative!: unknown;
  @NoSurroundingWhitespace() trimmed!: unknown;
  @IsDiamondIdFormat() diamond_id!: unknown;
  @IsEntitySpecificTags() tags!: unknown;
  @IsPlainObject() obj!: unknown;
  @IsStringMap() map!: unknown;
  @IsIsoDateTime() at!: unknown;
  @IsInstantOrDate() instant!: unknown;
  @IsCalendarDateTime() kept!: unknown;
  @IsOptionalNonNull() @IsPositiveDecimal() maybe?: unknown;
}

class Carats {
  @IsCaratWeight() carats!: unknown;
}

const valid = {
  positive: '1.25',
  non_negative: 0,
  trimmed: 'abc',
  diamond_id: '01hx5q8k2m3n4p5r6s7t8v9w0y',
  tags: { dit_session_id: 'x', other: 1 },
  obj: {},
  map: { a: 'b' },
  at: '2024-05-01T10:00:00Z',
  instant: '2021-05-01T00:00:00Z',
  kept: '2024-05-01T10:00:00Z',
};
const fails = (field: string, value: unknown) => failedPaths(Probe, { ...valid, [field]: value });

describe('custom validators', () => {
  it('accepts a valid probe', () => {
    expect(failedPaths(Probe, valid)).toEqual([]);
  });

  describe('IsPositiveDecimal', () => {
    it.each([1, 0.01, 1e5, '1.25', '3', '0.001', '00012.50'])('accepts %p', (v) => {
      expect(fails('positive', v)).toEqual([]);
    });
    it.each([
      0,
      -1,
      '0',
      '0.00',
      '-1',
      'abc',
      '1e5',
      '',
      ' 1.2',
      '1.2 ',
      '.5',
      '5.',
      '1,5',
      NaN,
      Infinity,
      -Infinity,
      true,
      false,
      null,
      undefined,
      {},
      [],
      ['1'],
    ])('rejects %p', (v) => {
      expect(fails('positive', v)).toEqual(['positive']);
    });
    it('names the field and the reason', () => {
      expect(messages(Probe, { ...valid, positive: 'abc' })).toEqual(['positive must be a number greater than 0 or decimal text such as "1.25"']);
    });
  });

  describe('IsNonNegativeDecimal', () => {
    it.each([0, '0', '0.0', 2.5])('accepts %p', (v) => expect(fails('non_negative', v)).toEqual([]));
    it.each([-0.1, '-0', 'x', null])('rejects %p', (v) => expect(fails('non_negative', v)).toEqual(['non_negative']));
  });

  describe('decimal checks without a Decimal', () => {
    // The checks compare numbers as they are and read signs from the text; the reference is what they did before:
    // every value through decimal.js (a number's Decimal is its shortest round-trip text).
    const reference = (v: number | string) => {
      const ok = typeof v === 'number' ? Number.isFinite(v) : v.length <= 40 && /^\d+(\.\d+)?$/.test(v);
      if (!ok) return { positive: false, nonNegative: false, carat: 'not positive' };
      const d = new Decimal(v);
      const carat = !d.gt(0) ? 'not positive' : d.gt(CARATS_MAX) ? 'above' : d.decimalPlaces() > 3 ? 'places' : 'ok';
      return { positive: d.gt(0), nonNegative: d.gte(0), carat };
    };
    const caratKind = (problem: string | null) =>
      problem === null ? 'ok' : /greater than 0/.test(problem) ? 'not positive' : /at most 100000/.test(problem) ? 'above' : 'places';
    const near = [0, -0, CARATS_MAX, 5e-324, -5e-324, 1e-7, 1e21, 0.1 + 0.2, 100000.0000000001, 99999.99999999999];
    const values = fc.oneof(
      fc.double(),
      fc.double({ min: -1, max: 2 * CARATS_MAX }),
      fc.constantFrom(...near, ...near.map((n) => n + Number.EPSILON * CARATS_MAX), ...near.map((n) => -n)),
      fc.stringMatching(/^[0-9]{1,8}(\.[0-9]{1,6})?$/),
      fc.constantFrom(
        '0',
        '000',
        '0.000',
        '100000',
        '100000.0001',
        '0100000.000',
        '99999.9995',
        '00.001',
        '0100001',
        '100000.5',
        '1234567890123456.5',
        '99999999999999999999.1',
        '1e5',
        '-1',
        '',
        `1.${'0'.repeat(39)}`,
      ),
    );

    it('IsPositiveDecimal, IsNonNegativeDecimal and a carat weight answer as decimal.js does', () => {
      fc.assert(
        fc.property(values, (v) => {
          const want = reference(v);
          expect({
            positive: fails('positive', v).length === 0,
            nonNegative: fails('non_negative', v).length === 0,
            carat: caratKind(caratWeightProblem(v)),
          }).toEqual(want);
          expect(failedPaths(Carats, { carats: v }).length === 0).toBe(want.carat === 'ok');
        }),
        { numRuns: 3000 },
      );
    });
  });

  describe('NoSurroundingWhitespace', () => {
    it.each(['a b', 'ERP-1'])('accepts %p', (v) => expect(fails('trimmed', v)).toEqual([]));
    it.each([' a', 'a ', '\ta', 'a\n', '\u00a0a'])('rejects %p', (v) => {
      expect(fails('trimmed', v)).toEqual(['trimmed']);
      expect(messages(Probe, { ...valid, trimmed: v })).toEqual(['trimmed must not have leading or trailing whitespace']);
    });
  });

  describe('IsDiamondIdFormat', () => {
    it.each(['a'.repeat(20), '0'.repeat(98)])('accepts %p', (v) => expect(fails('diamond_id', v)).toEqual([]));
    it.each(['a'.repeat(19), 'a'.repeat(99), '01HX5Q8K2M3N4P5R6S7T8V9W0Y', 'abc-def-ghi-jkl-mno-pqr', 123])('rejects %p', (v) =>
      expect(fails('diamond_id', v)).toEqual(['diamond_id']),
    );
  });

  describe('IsEntitySpecificTags', () => {
    it.each([{}, { dit_session_id: null }, { dit_session_id: 's', extra: { a: 1 } }])('accepts %p', (v) => expect(fails('tags', v)).toEqual([]));
    it('rejects a non-string dit_session_id with a message naming it', () => {
      expect(fails('tags', { dit_session_id: 5 })).toEqual(['tags']);
      expect(messages(Probe, { ...valid, tags: { dit_session_id: 5 } })).toEqual(['tags.dit_session_id must be a string or null']);
    });
    it.each(['x', [], 1])('rejects non-object %p', (v) => expect(fails('tags', v)).toEqual(['tags']));
  });

  it('IsPlainObject rejects arrays and null', () => {
    expect(fails('obj', [])).toEqual(['obj']);
    expect(fails('obj', null)).toEqual(['obj']);
    expect(fails('obj', { a: [1] })).toEqual([]);
  });

  it('IsStringMap requires string values', () => {
    expect(fails('map', { a: 1 })).toEqual(['map']);
    expect(fails('map', {})).toEqual([]);
  });

  describe('IsIsoDateTime', () => {
    it.each(['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123+02:00', '2024-05-01T10:00'])('accepts %p', (v) => expect(fails('at', v)).toEqual([]));
    it.each(['yesterday', '2023-02-30T10:00:00Z', '2024-13-01T00:00:00Z', 1714557600000, ''])('rejects %p', (v) => expect(fails('at', v)).toEqual(['at']));
  });

  describe('IsCalendarDateTime', () => {
    it.each([
      '2024-05-01T10:00:00Z',
      '2024-05-01T10:00:00.123456789+02:00',
      '2024-05-01T10:00:00+0200',
      '2024-05-01T10:00',
      '2024-05-01T10:00:00',
      '2024-05-01 10:00:00Z',
      '2024-05-01',
      '2024-02-29T00:00:00Z',
    ])('accepts %p (as validator does)', (v) => {
      expect(fails('kept', v)).toEqual([]);
      expect(fails('at', v)).toEqual([]);
    });
    // Taken by validator's strict isISO8601 (IsIsoDateTime, which events keep): a year or month alone is no date-time,
    // and JavaScript's Date reads none of the others.
    it.each(['2024', '2024-05', '2024-W18-3', '2024-122', '20240501T100000Z', '2024-05-01T10', '2024-05-01T10:00:00,5Z'])('refuses %p', (v) => {
      expect(fails('at', v)).toEqual([]);
      expect(fails('kept', v)).toEqual(['kept']);
    });
    it.each(['yesterday', '2023-02-30T10:00:00Z', '2024-13-01T00:00:00Z', '2024-05-01T24:00:00Z', '2024-05-01t10:00:00z', 1714557600000, '', null])(
      'refuses %p',
      (v) => expect(fails('kept', v)).toEqual(['kept']),
    );
  });

  describe('IsInstantOrDate', () => {
    it.each([
      '2021-05-01',
      '2021-05-01T09:30:00Z',
      '2021-05-01t09:30:00z',
      '2021-05-01T09:30Z',
      '2021-05-01T09:30:00.123456789+14:00',
      '2024-02-29T23:59:59-12:00',
    ])('accepts %p', (v) => expect(fails('instant', v)).toEqual([]));
    // ISO 8601 forms that validator's strict isISO8601 accepts but JavaScript's Date cannot read (week, ordinal, basic
    // format, hour only, a comma before the fraction) or reads in the server's local time (no zone), and impossible moments.
    it.each([
      '2021-W05-1',
      '2021-123',
      '20210501T093000Z',
      '2021-05-01T09',
      '2021-05-01T09:30:00,5Z',
      '2021-05-01T09:30:00',
      '2021-05-01 09:30:00Z',
      '2021',
      '2021-05',
      '2021-02-29',
      '2021-02-30T00:00:00Z',
      '2021-05-01T24:00:00Z',
      '2021-05-01T09:60:00Z',
      '2021-05-01T09:30:00+24:00',
      '0999-05-01',
      ' 2021-05-01',
      '',
      1619827200000,
      null,
    ])('rejects %p', (v) => expect(fails('instant', v)).toEqual(['instant']));
    it('names the field and both accepted forms', () => {
      expect(messages(Probe, { ...valid, instant: '2021-W05-1' })).toEqual([
        'instant must be a date (e.g. 2021-05-01, midnight UTC) or a date-time with a time zone (e.g. 2021-05-01T09:30:00Z)',
      ]);
    });
  });

  describe('IsOptionalNonNull', () => {
    it('skips an absent value', () => expect(fails('maybe', undefined)).toEqual([]));
    it('validates null', () => expect(fails('maybe', null)).toEqual(['maybe']));
    it('validates a present value', () => {
      expect(fails('maybe', '2')).toEqual([]);
      expect(fails('maybe', '-2')).toEqual(['maybe']);
    });
  });
});
