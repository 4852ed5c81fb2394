import { CreatePolishedDiamondDto, DestroyDiamondDto, SplitDiamondDto } from './lifecycle.dto';
import { PolishedSchemaDto } from './polished-schema.dto';
import { REMOVE, failedPaths, messages, validatePlain, withField } from './spec-helpers';

const PARENT = '01hx5q8k2m3n4p5r6s7t8v9w0y';

describe('PolishedSchemaDto', () => {
  const base = { carats: '1.01', shape: 'Round' };
  const polished = (patch: Record<string, unknown>) => failedPaths(PolishedSchemaDto, { ...base, ...patch });

  it('accepts a full record', () => {
    expect(
      polished({
        clarity: 'VVS1',
        colour: 'E',
        cut_grade: 'EX',
        polish_quality: 'VG-EX',
        symmetry: 'G-VG',
        fluorescence_colour: 'B',
        fluorescence_intensity: 'F',
        fancy_colour: 'P',
        fancy_colour_intensity: 'I',
        fancy_colour_overtone: 'purplish',
        display_colour: 'E',
        culet_condition: 'A',
        culet_size: 'VS',
        girdle_condition: 'F',
        girdle_thickness_from: 'Thin',
        girdle_thickness_to: 'Slightly Thick',
        crown_angle: 34.5,
        crown_height: 15,
        depth: 4.1,
        depth_percent: 61.8,
        diameter_maximum: 6.52,
        diameter_minimum: 6.48,
        length: 6.52,
        pavillion_angle: 40.8,
        pavillion_percent: 43,
        table_percent: 57,
        width: 6.48,
      }),
    ).toEqual([]);
  });

  it('carats is required and positive', () => {
    expect(failedPaths(PolishedSchemaDto, { shape: 'Round' })).toEqual(['carats']);
    expect(polished({ carats: '0' })).toEqual(['carats']);
  });

  it('shape is required and a Shape value', () => {
    expect(failedPaths(PolishedSchemaDto, { carats: 1 })).toEqual(['shape']);
    expect(polished({ shape: 'Trillion' })).toEqual([]);
    expect(polished({ shape: 'Other' })).toEqual([]);
    expect(polished({ shape: 'round' })).toEqual(['shape']);
  });

  it.each([
    ['clarity', 'SI1', 'SI4'],
    ['colour', 'K', 'A'],
    ['cut_grade', 'NA', 'EXCELLENT'],
    ['polish_quality', 'F-G', 'VG-G'],
    ['symmetry', 'P', 'X'],
    ['fluorescence_colour', 'W', 'Z'],
    ['fluorescence_intensity', 'SL', 'L'],
    ['fancy_colour', 'Y_O', 'O_Y_B'],
    ['fancy_colour_intensity', 'FL', 'M'],
    ['culet_condition', 'C', 'B'],
    ['culet_size', 'EL', 'XL'],
    ['girdle_condition', 'B', 'A'],
    ['girdle_thickness_from', 'Extremely Thin', 'thin'],
    ['girdle_thickness_to', 'Very Thick', 'Thickest'],
  ])('%s accepts %p, rejects %p and accepts null', (key, good, bad) => {
    expect(polished({ [key]: good })).toEqual([]);
    expect(polished({ [key]: null })).toEqual([]);
    expect(polished({ [key]: bad })).toEqual([key]);
  });

  it.each([
    'crown_angle',
    'crown_height',
    'depth',
    'depth_percent',
    'diameter_maximum',
    'diameter_minimum',
    'length',
    'pavillion_angle',
    'pavillion_percent',
    'table_percent',
    'width',
  ])('%s is a non-negative number', (key) => {
    expect(polished({ [key]: 0 })).toEqual([]);
    expect(polished({ [key]: 12.5 })).toEqual([]);
    expect(polished({ [key]: -0.1 })).toEqual([key]);
    expect(polished({ [key]: '12.5' })).toEqual([key]);
    expect(polished({ [key]: NaN })).toEqual([key]);
  });

  it.each(['fancy_colour_overtone', 'display_colour'])('%s is a free string', (key) => {
    expect(polished({ [key]: 'x' })).toEqual([]);
    expect(polished({ [key]: 1 })).toEqual([key]);
  });

  it('rejects unknown fields', () => expect(polished({ images: [] })).toEqual(['images']));
});

describe('CreatePolishedDiamondDto', () => {
  const valid = {
    parent_diamond_id: PARENT,
    participant_id: 'POL-1',
    participant_timestamp: '2024-06-01T08:30:00Z',
    polished: { carats: 0.9, shape: 'Oval' },
  };
  const fails = (key: string, value: unknown) => failedPaths(CreatePolishedDiamondDto, withField(valid, key, value));

  it('accepts a valid body', () => {
    const { errors, instance } = validatePlain(CreatePolishedDiamondDto, {
      ...valid,
      supplementary_tags: { a: 1 },
      entity_specific_tags: { dit_session_id: null },
    });
    expect(errors).toEqual([]);
    expect(instance.polished).toBeInstanceOf(PolishedSchemaDto);
  });

  it.each([REMOVE, 'ABC', 'short', 1])('parent_diamond_id rejects %p', (v) => expect(fails('parent_diamond_id', v)).toEqual(['parent_diamond_id']));
  it.each([REMOVE, '', ' x'])('participant_id rejects %p', (v) => expect(fails('participant_id', v)).toEqual(['participant_id']));
  it.each([REMOVE, 'x'])('participant_timestamp rejects %p', (v) => expect(fails('participant_timestamp', v)).toEqual(['participant_timestamp']));
  it('polished is required', () => expect(fails('polished', REMOVE)).toEqual(['polished']));
  it('rejects unknown fields inside polished', () => {
    expect(fails('polished', { carats: 1, shape: 'Round', weight: 2 })).toEqual(['polished.weight']);
  });
  it('rejects a bad nested value with its path', () => {
    expect(fails('polished', { carats: 1, shape: 'Blob' })).toEqual(['polished.shape']);
  });
  it('checks supplementary_tags and entity_specific_tags', () => {
    expect(fails('supplementary_tags', 'x')).toEqual(['supplementary_tags']);
    expect(fails('entity_specific_tags', { dit_session_id: 2 })).toEqual(['entity_specific_tags']);
  });
  it('rejects unknown fields', () => expect(fails('box_id', 'b')).toEqual(['box_id']));
});

describe('lifecycle bounds (DESIGN.md "Input bounds")', () => {
  const polished = {
    parent_diamond_id: 'a'.repeat(26),
    participant_id: 'P',
    participant_timestamp: '2024-06-01T08:30:00Z',
    polished: { carats: '0.5', shape: 'Round' },
  };
  it('participant_id at most 256 characters (polish and each cut)', () => {
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, participant_id: 'p'.repeat(256) })).toEqual([]);
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, participant_id: 'p'.repeat(257) })).toEqual(['participant_id']);
    const cut = (id: string) => ({ participant_id: id, rough: { carats: '0.1' } });
    expect(failedPaths(SplitDiamondDto, { cuts: [cut('A'), cut('p'.repeat(256))] })).toEqual([]);
    expect(failedPaths(SplitDiamondDto, { cuts: [cut('A'), cut('p'.repeat(257))] })).toEqual(['cuts.1.participant_id']);
  });
  it('tag objects bounded in size and depth', () => {
    let deep: Record<string, unknown> = { x: 1 };
    for (let i = 0; i < 20; i++) deep = { a: deep };
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, supplementary_tags: { a: 'x'.repeat(100) } })).toEqual([]);
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, supplementary_tags: { a: 'x'.repeat(17 * 1024) } })).toEqual(['supplementary_tags']);
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, supplementary_tags: deep })).toEqual(['supplementary_tags']);
    expect(failedPaths(CreatePolishedDiamondDto, { ...polished, entity_specific_tags: { dit_session_id: 'x', big: 'x'.repeat(17 * 1024) } })).toEqual([
      'entity_specific_tags',
    ]);
  });
});

describe('SplitDiamondDto', () => {
  const cut = (id: string) => ({ participant_id: id, rough: { carats: '0.5' } });
  const valid = { participant_timestamp: '2024-06-01T08:30:00Z', cuts: [cut('A'), cut('B')] };
  const fails = (key: string, value: unknown) => failedPaths(SplitDiamondDto, withField(valid, key, value));

  it('accepts two cuts', () => expect(failedPaths(SplitDiamondDto, valid)).toEqual([]));
  it('accepts 100 cuts and rejects 101', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => cut(`C${i}`));
    expect(fails('cuts', many(100))).toEqual([]);
    expect(fails('cuts', many(101))).toEqual(['cuts']);
  });
  it('rejects fewer than two cuts', () => {
    expect(fails('cuts', [cut('A')])).toEqual(['cuts']);
    expect(messages(SplitDiamondDto, { ...valid, cuts: [cut('A')] })).toEqual(['cuts must contain at least 2 entries']);
  });
  it('rejects duplicate participant_id values', () => {
    expect(messages(SplitDiamondDto, { ...valid, cuts: [cut('A'), cut('A')] })).toEqual(['cuts must have distinct participant_id values']);
  });
  it('validates each cut', () => {
    expect(fails('cuts', [cut('A'), { participant_id: 'B ', rough: { carats: 0 } }])).toEqual(['cuts.1.participant_id', 'cuts.1.rough.carats']);
    expect(fails('cuts', [cut('A'), { participant_id: 'B' }])).toEqual(['cuts.1.rough']);
  });
  it('rejects unknown fields in a cut and in its rough', () => {
    expect(fails('cuts', [cut('A'), { ...cut('B'), extra: 1 }])).toEqual(['cuts.1.extra']);
    expect(fails('cuts', [cut('A'), { participant_id: 'B', rough: { carats: 1, x: 1 } }])).toEqual(['cuts.1.rough.x']);
  });
  it('takes {cuts} alone: participant_timestamp is optional (top level and per cut)', () => {
    expect(failedPaths(SplitDiamondDto, { cuts: [cut('A'), cut('B')] })).toEqual([]);
    expect(fails('participant_timestamp', null)).toEqual([]);
    expect(fails('cuts', [cut('A'), { ...cut('B'), participant_timestamp: '2024-06-02T09:00:00Z' }])).toEqual([]);
  });
  it.each([1, 'x', ''])('participant_timestamp rejects %p (top level and per cut)', (v) => {
    expect(fails('participant_timestamp', v)).toEqual(['participant_timestamp']);
    expect(fails('cuts', [cut('A'), { ...cut('B'), participant_timestamp: v }])).toEqual(['cuts.1.participant_timestamp']);
  });
  it('cuts is required and an array', () => {
    expect(fails('cuts', REMOVE)).toEqual(['cuts']);
    expect(fails('cuts', 'AB')[0]).toBe('cuts');
  });
});

describe('DestroyDiamondDto', () => {
  it.each([DestroyDiamondDto])('%p accepts an empty body or a timestamp', (cls) => {
    expect(failedPaths(cls, {})).toEqual([]);
    expect(failedPaths(cls, { participant_timestamp: '2024-06-01T08:30:00Z' })).toEqual([]);
  });
  it.each([DestroyDiamondDto])('%p rejects a bad timestamp and unknown fields', (cls) => {
    expect(failedPaths(cls, { participant_timestamp: 'soon' })).toEqual(['participant_timestamp']);
    expect(failedPaths(cls, { reason: 'lost' })).toEqual(['reason']);
  });
});
