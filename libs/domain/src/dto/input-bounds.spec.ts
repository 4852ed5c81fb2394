import { CARATS_MAX, DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH, STRING_LIST_MAX_ITEMS, TAGS_MAX_BYTES, TAGS_MAX_DEPTH } from '../rules/limits';
import { OnboardParticipantDto } from './auth.dto';
import { BulkDeleteRequestDto } from './bulk-delete.dto';
import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { GradingSubmissionDto, ValidateJsonRequestDto, VerifyRequestDto } from './gis.dto';
import { PolishedSchemaDto } from './polished-schema.dto';
import { RoughSchemaDto } from './rough-schema.dto';
import { failedPaths, messages, validatePlain, withField } from './spec-helpers';
import { TransferDecisionDto, TransferOutDto } from './transfer.dto';
import { UserGradedMeasurementDto } from './user-graded-measurement.dto';
import { caratWeightProblem, IsBoundedJsonObject, IsWellFormedText, RESERVED_KEYS, scanJson, textProblem } from './validators';

/** `{a: {a: ... {}}}` with `levels` objects in all (the outer one included). */
function nested(levels: number, leaf: unknown = {}): unknown {
  let v: unknown = leaf;
  for (let i = 1; i < levels; i += 1) v = { a: v };
  return v;
}
const long = (n: number) => 'x'.repeat(n);
const types = (cls: new () => object, plain: unknown) => validatePlain(cls, plain).detail.map((d) => `${d.loc.join('.')}:${d.type}`);

describe('scanJson: an iterative walk that measures depth, size and text', () => {
  it('passes a value within its bounds and reports its depth and size', () => {
    const r = scanJson({ a: [1, 'b', { c: null }] }, { maxDepth: 3, maxBytes: 100, checkText: true });
    expect(r.issues).toEqual([]);
    expect(r.depth).toBe(3);
    expect(r.bytes).toBeGreaterThanOrEqual(JSON.stringify({ a: [1, 'b', { c: null }] }).length - 2);
  });

  it('names the path where a value gets too deep, and does not recurse on 1,000,000 levels', () => {
    const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    const r = scanJson(deep, { maxDepth: 32 });
    expect(r.issues).toEqual([{ kind: 'too_deep', path: Array(32).fill(0), message: 'nested more than 32 levels deep' }]);
    expect(scanJson(nested(32), { maxDepth: 32 }).issues).toEqual([]);
    expect(scanJson(nested(33), { maxDepth: 32 }).issues[0].path).toEqual(Array(32).fill('a'));
  });

  it('stops at maxBytes', () => {
    expect(scanJson({ s: long(90) }, { maxBytes: 100 }).issues).toEqual([]);
    expect(scanJson({ s: long(200) }, { maxBytes: 100 }).issues).toEqual([{ kind: 'too_large', path: [], message: 'larger than 100 bytes as JSON' }]);
  });

  it('reports NUL and lone surrogates in values and keys with their paths', () => {
    const r = scanJson({ ok: 'fine \u{1F48E}', bad: ['x', 'a\u0000b'], ['k\uD800']: 1, low: '\uDC00' }, { checkText: true });
    expect(r.issues.map((i) => [i.path, i.message])).toEqual([
      [['bad', 1], 'must not contain the NUL character (U+0000)'],
      [['k\uD800'], 'key must not contain a lone surrogate (invalid Unicode)'],
      [['low'], 'must not contain a lone surrogate (invalid Unicode)'],
    ]);
    expect(scanJson('a\u0000', { checkText: true }).issues[0].path).toEqual([]);
  });

  it('reports, when asked, only the keys that could pollute a prototype: __proto__ and constructor.prototype', () => {
    const value = JSON.parse('{"a":{"constructor":{"prototype":1,"x":2},"prototype":2},"__proto__":{"toString":3},"constructor":4,"toString":5}');
    expect(scanJson(value, {}).issues).toEqual([]);
    expect(scanJson(value, { pollutingKeys: true }).issues.map((i) => [i.kind, i.path])).toEqual([
      ['reserved_key', ['a', 'constructor', 'prototype']],
      ['reserved_key', ['__proto__']],
    ]);
  });

  it('reports reserved keys (the names every object has) only when asked, with their paths, whatever their value', () => {
    const value = JSON.parse('{"a":{"constructor":1,"toStringy":2},"list":[{"__proto__":null}],"prototype":"x","valueOf":{"hasOwnProperty":[]}}');
    expect(scanJson(value, { checkText: true }).issues).toEqual([]);
    expect(scanJson(value, { reservedKeys: true }).issues.map((i) => [i.kind, i.path])).toEqual([
      ['reserved_key', ['a', 'constructor']],
      ['reserved_key', ['list', 0, '__proto__']],
      ['reserved_key', ['prototype']],
      ['reserved_key', ['valueOf']],
      ['reserved_key', ['valueOf', 'hasOwnProperty']],
    ]);
    expect(scanJson(value, { reservedKeys: true, maxIssues: 2 }).issues).toHaveLength(2);
    for (const name of ['toString', 'toLocaleString', 'isPrototypeOf', 'propertyIsEnumerable', '__defineGetter__', '__lookupSetter__']) {
      expect(RESERVED_KEYS.has(name)).toBe(true);
    }
    expect(RESERVED_KEYS.has('to_string')).toBe(false);
  });

  it('tells, when asked, whether a value is only what JSON.parse makes (plain), and counts bytes only against maxBytes', () => {
    const parsed = JSON.parse('{"a":[1,"b",{"c":null,"d":true}],"e":{}}') as unknown;
    expect(scanJson(parsed, { checkPlain: true }).plain).toBe(true);
    expect(scanJson(Object.assign(Object.create(null) as object, { q: ['1', '2'] }), { checkPlain: true }).plain).toBe(true);
    expect(scanJson(parsed).plain).toBe(false);
    const odd = [[1, , 3], Buffer.from('x'), new Date(0), new Map(), [undefined], { f: () => 1 }, { n: 1n }, new (class Box {})()];
    for (const v of odd) expect([v, scanJson({ a: [{ v }] }, { checkPlain: true }).plain]).toEqual([v, false]);
    // A walk cut short (an issue, maxDepth) does not vouch for what it did not see.
    expect(scanJson({ a: '\u0000', b: new Date(0) }, { checkPlain: true, checkText: true, maxIssues: 1 }).plain).toBe(false);
    expect(scanJson({ a: { b: {} } }, { checkPlain: true, maxDepth: 2 }).plain).toBe(false);
    expect(scanJson(parsed, { checkPlain: true }).bytes).toBe(0);
  });

  it('textProblem accepts surrogate pairs and refuses NUL and lone halves', () => {
    expect(textProblem('diamond \u{1F48E}')).toBeNull();
    expect(textProblem('\uD83D')).toMatch(/lone surrogate/);
    expect(textProblem('x\u0000')).toMatch(/NUL/);
  });
});

describe('IsWellFormedText and IsBoundedJsonObject', () => {
  class Probe {
    @IsWellFormedText() text!: unknown;
    @IsBoundedJsonObject({ maxBytes: 64, maxDepth: 3 }) tags!: unknown;
  }
  it('accepts well-formed text and a small, shallow object', () => {
    expect(failedPaths(Probe, { text: 'ok', tags: { a: { b: 1 } } })).toEqual([]);
  });
  it('refuses NUL, lone surrogates, a deep object, a big object and a non-object, naming the field', () => {
    expect(messages(Probe, { text: 'a\u0000', tags: {} })).toEqual(['text must not contain the NUL character (U+0000)']);
    expect(failedPaths(Probe, { text: '\uDFFF', tags: {} })).toEqual(['text']);
    expect(messages(Probe, { text: 'ok', tags: nested(4) })).toEqual(['tags must be nested at most 3 levels deep']);
    expect(messages(Probe, { text: 'ok', tags: { s: long(100) } })).toEqual(['tags must be at most 64 bytes as JSON']);
    expect(messages(Probe, { text: 'ok', tags: [1] })).toEqual(['tags must be an object']);
  });
});

describe('carat weights', () => {
  it('accept up to 100,000 with 3 decimal places', () => {
    for (const v of ['1.25', 0.5, '3.001', CARATS_MAX, '100000.000']) expect(caratWeightProblem(v)).toBeNull();
  });
  it('refuse more than 100,000, more than 3 decimal places and over-long decimal text', () => {
    expect(caratWeightProblem(100000.001)).toBe('must be at most 100000');
    expect(caratWeightProblem('1.0001')).toBe('must have at most 3 decimal places');
    expect(caratWeightProblem(`1.${'0'.repeat(60)}`)).toMatch(/greater than 0/);
  });
  it('in RoughSchemaDto, PolishedSchemaDto and the graded measurements, with FastAPI types', () => {
    expect(types(RoughSchemaDto, { carats: '100001' })).toEqual(['carats:less_than_equal']);
    expect(types(RoughSchemaDto, { carats: '1.2345' })).toEqual(['carats:decimal_max_places']);
    expect(types(RoughSchemaDto, { carats: 'abc' })).toEqual(['carats:is_positive_decimal']);
    expect(failedPaths(PolishedSchemaDto, { carats: '0.123', shape: 'Round' })).toEqual([]);
    expect(failedPaths(PolishedSchemaDto, { carats: '0.1234', shape: 'Round' })).toEqual(['carats']);
    expect(failedPaths(UserGradedMeasurementDto, { carats: 1e6 })).toEqual(['carats']);
    expect(failedPaths(UserGradedMeasurementDto, { carats: 1.5 })).toEqual([]);
  });
  it('verify and validate-json weights are at most 100,000', () => {
    expect(failedPaths(VerifyRequestDto, { carat_weight: CARATS_MAX, shape_group: 'Round' })).toEqual([]);
    expect(failedPaths(VerifyRequestDto, { carat_weight: CARATS_MAX + 1, shape_group: 'Round' })).toEqual(['carat_weight']);
    const vj = { shape_group: 'Round', estimated_weight_crt: 1, girdle_avg_mm: 1, table_avg_mm: 1, total_depth_mm: 1 };
    expect(failedPaths(ValidateJsonRequestDto, vj)).toEqual([]);
    expect(failedPaths(ValidateJsonRequestDto, { ...vj, estimated_weight_crt: CARATS_MAX + 1 })).toEqual(['estimated_weight_crt']);
  });
});

describe('CreateRoughDiamondDto bounds', () => {
  const valid = { box_id: 'BOX-1', participant_id: 'ERP-1', participant_timestamp: '2024-05-01T10:00:00Z', rough: { carats: 1 } };
  const fails = (key: string, value: unknown) => failedPaths(CreateRoughDiamondDto, withField(valid, key, value));

  it.each(['box_id', 'participant_id'])('%s is at most 256 characters', (key) => {
    expect(fails(key, long(ID_MAX_LENGTH))).toEqual([]);
    expect(fails(key, long(ID_MAX_LENGTH + 1))).toEqual([key]);
    expect(types(CreateRoughDiamondDto, withField(valid, key, long(3000)))).toEqual([`${key}:string_too_long`]);
  });

  it('box_description is at most 1,000 characters', () => {
    expect(fails('box_description', long(DESCRIPTION_MAX_LENGTH))).toEqual([]);
    expect(fails('box_description', long(DESCRIPTION_MAX_LENGTH + 1))).toEqual(['box_description']);
  });

  it.each(['supplementary_tags', 'entity_specific_tags'])('%s is at most 16 KiB and 8 levels deep', (key) => {
    expect(fails(key, { blob: long(TAGS_MAX_BYTES - 100) })).toEqual([]);
    expect(fails(key, { blob: long(TAGS_MAX_BYTES) })).toEqual([key]);
    expect(fails(key, nested(TAGS_MAX_DEPTH))).toEqual([]);
    expect(fails(key, nested(TAGS_MAX_DEPTH + 1))).toEqual([key]);
  });

  // (Deeper values never get here: the service kit refuses bodies nested past 32 levels before class-transformer.)
  it('tags nested 30 levels (within the body limit) are refused, naming the field', () => {
    expect(messages(CreateRoughDiamondDto, withField(valid, 'supplementary_tags', nested(30)))).toEqual([
      `supplementary_tags must be nested at most ${TAGS_MAX_DEPTH} levels deep`,
    ]);
  });

  it('entity_specific_tags that is not an object gets one error, not two', () => {
    expect(messages(CreateRoughDiamondDto, withField(valid, 'entity_specific_tags', 'tags'))).toEqual(['entity_specific_tags must be an object']);
  });
});

describe('free strings are at most 256 characters (descriptions and comments 1,000)', () => {
  it.each(['display_colour', 'fancy_colour_overtone', 'model', 'quality', 'stress'])('RoughSchemaDto.%s', (key) => {
    expect(failedPaths(RoughSchemaDto, { carats: 1, [key]: long(ID_MAX_LENGTH) })).toEqual([]);
    expect(failedPaths(RoughSchemaDto, { carats: 1, [key]: long(ID_MAX_LENGTH + 1) })).toEqual([key]);
  });

  it.each(['display_colour', 'fancy_colour_overtone'])('PolishedSchemaDto.%s', (key) => {
    expect(failedPaths(PolishedSchemaDto, { carats: 1, shape: 'Round', [key]: long(ID_MAX_LENGTH) })).toEqual([]);
    expect(failedPaths(PolishedSchemaDto, { carats: 1, shape: 'Round', [key]: long(ID_MAX_LENGTH + 1) })).toEqual([key]);
  });

  const submission = {
    grader_certificate_number: 'C',
    grader_report_number: 'R',
    grading_lab: 'GIA',
    graded_date: '2024-06-01T00:00:00Z',
    carats: '1.01',
    shape: 'Round',
  };
  const graded: [string, number][] = [
    ['display_colour', ID_MAX_LENGTH],
    ['fancy_colour_overtone', ID_MAX_LENGTH],
    ['grader_certificate_number', ID_MAX_LENGTH],
    ['grader_clarity_characteristics', DESCRIPTION_MAX_LENGTH],
    ['grader_colour', ID_MAX_LENGTH],
    ['grader_report_comments', DESCRIPTION_MAX_LENGTH],
    ['grader_report_number', ID_MAX_LENGTH],
    ['grader_report_type', ID_MAX_LENGTH],
    ['grader_shape', ID_MAX_LENGTH],
    ['grading_certificate_description', DESCRIPTION_MAX_LENGTH],
    ['grading_certificate_filename', ID_MAX_LENGTH],
    ['grading_certificate_hash', ID_MAX_LENGTH],
    ['measurement_text', ID_MAX_LENGTH],
  ];
  describe.each([
    ['UserGradedMeasurementDto', UserGradedMeasurementDto, {}],
    ['GradingSubmissionDto', GradingSubmissionDto, submission],
  ] as const)('%s', (_name, cls, base) => {
    it.each(graded)('%s at most %p', (key, max) => {
      expect(failedPaths(cls, { ...base, [key]: long(max) })).toEqual([]);
      expect(failedPaths(cls, { ...base, [key]: long(max + 1) })).toEqual([key]);
    });
    it('grader_inscription_numbers: at most 100 entries of 256 characters', () => {
      expect(failedPaths(cls, { ...base, grader_inscription_numbers: Array(STRING_LIST_MAX_ITEMS).fill(long(ID_MAX_LENGTH)) })).toEqual([]);
      expect(failedPaths(cls, { ...base, grader_inscription_numbers: Array(STRING_LIST_MAX_ITEMS + 1).fill('x') })).toEqual(['grader_inscription_numbers']);
      expect(failedPaths(cls, { ...base, grader_inscription_numbers: [long(ID_MAX_LENGTH + 1)] })).toEqual(['grader_inscription_numbers']);
    });
    it('supplementary_files: at most 16 KiB', () => {
      expect(failedPaths(cls, { ...base, supplementary_files: { a: long(1000) } })).toEqual([]);
      expect(failedPaths(cls, { ...base, supplementary_files: { a: long(TAGS_MAX_BYTES) } })).toEqual(['supplementary_files']);
    });
  });

  it('ValidateJsonRequestDto.shape_group', () => {
    const vj = { estimated_weight_crt: 1, girdle_avg_mm: 1, table_avg_mm: 1, total_depth_mm: 1 };
    expect(failedPaths(ValidateJsonRequestDto, { ...vj, shape_group: long(ID_MAX_LENGTH) })).toEqual([]);
    expect(failedPaths(ValidateJsonRequestDto, { ...vj, shape_group: long(ID_MAX_LENGTH + 1) })).toEqual(['shape_group']);
  });

  it('BulkDeleteRequestDto diamond_id', () => {
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: long(ID_MAX_LENGTH) }] })).toEqual([]);
    expect(failedPaths(BulkDeleteRequestDto, { diamonds: [{ diamond_id: long(3000) }] })).toEqual(['diamonds.0.diamond_id']);
  });

  it('transfer diamond_ids entries', () => {
    const out = { recipient_participant_id: '6f1c2d3e-4a5b-4c6d-8e7f-901234567890', name: 'n', shipment_type: 'rough' };
    expect(failedPaths(TransferOutDto, { ...out, diamond_ids: [long(ID_MAX_LENGTH)] })).toEqual([]);
    expect(failedPaths(TransferOutDto, { ...out, diamond_ids: [long(ID_MAX_LENGTH + 1)] })).toEqual(['diamond_ids']);
    expect(failedPaths(TransferDecisionDto, { diamond_ids: ['a', long(ID_MAX_LENGTH + 1)] })).toEqual(['diamond_ids']);
  });

  it('onboarding provenance name and type', () => {
    const body = (p: object) => ({ name: 'Acme', role: 'producer', provenance: { name: 'Mine', type: 'mine', ...p } });
    expect(failedPaths(OnboardParticipantDto, body({ name: long(ID_MAX_LENGTH), type: long(ID_MAX_LENGTH) }))).toEqual([]);
    expect(failedPaths(OnboardParticipantDto, body({ name: long(ID_MAX_LENGTH + 1) }))).toEqual(['provenance.name']);
    expect(failedPaths(OnboardParticipantDto, body({ type: long(ID_MAX_LENGTH + 1) }))).toEqual(['provenance.type']);
  });
});
