import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { RoughSchemaDto } from './rough-schema.dto';
import { REMOVE, failedPaths, messages, validatePlain, withField } from './spec-helpers';

const valid = {
  box_id: 'BOX-2024-001',
  participant_id: 'ERP-0001',
  participant_timestamp: '2024-05-01T10:00:00Z',
  rough: { carats: 1.25 },
};
const fails = (key: string, value: unknown) => failedPaths(CreateRoughDiamondDto, withField(valid, key, value));

describe('CreateRoughDiamondDto', () => {
  it('accepts the minimal body and builds nested instances', () => {
    const { errors, instance } = validatePlain(CreateRoughDiamondDto, valid);
    expect(errors).toEqual([]);
    expect(instance.rough).toBeInstanceOf(RoughSchemaDto);
    expect(instance.assurance_level).toBeUndefined();
  });

  it('accepts a full body', () => {
    const full = {
      ...valid,
      assurance_level: 'declared',
      box_description: 'Sight box',
      entity_specific_tags: { dit_session_id: 'abc', custom: [1, 2] },
      sight_no: 3,
      sight_year: 2024,
      supplementary_tags: { any: { nested: true } },
      rough: {
        carats: '2.50',
        colour: 'D',
        display_colour: 'Fancy Vivid Yellow',
        fancy_colour: 'Y',
        fancy_colour_intensity: 'FV',
        fancy_colour_overtone: 'greenish',
        fluorescence_colour: 'B',
        fluorescence_intensity: 'VS',
        model: 'm',
        quality: 'q',
        stress: 'light stress',
      },
    };
    expect(failedPaths(CreateRoughDiamondDto, full)).toEqual([]);
  });

  it('accepts null for every nullable optional member', () => {
    const nulls = {
      ...valid,
      box_description: null,
      entity_specific_tags: null,
      sight_no: null,
      sight_year: null,
      supplementary_tags: null,
      rough: {
        carats: 1,
        colour: null,
        display_colour: null,
        fancy_colour: null,
        fancy_colour_intensity: null,
        fancy_colour_overtone: null,
        fluorescence_colour: null,
        fluorescence_intensity: null,
        model: null,
        quality: null,
        stress: null,
      },
    };
    expect(failedPaths(CreateRoughDiamondDto, nulls)).toEqual([]);
  });

  it('rejects unknown top-level fields', () => {
    expect(fails('surprise', 1)).toEqual(['surprise']);
  });

  it('rejects unknown fields inside rough', () => {
    expect(fails('rough', { carats: 1, shape: 'Round' })).toEqual(['rough.shape']);
  });

  describe('box_id', () => {
    it.each([REMOVE, '', null, 5])('rejects %p', (v) => expect(fails('box_id', v)).toEqual(['box_id']));
  });

  describe('participant_id', () => {
    it('accepts inner spaces', () => expect(fails('participant_id', 'ERP 0001')).toEqual([]));
    it.each([REMOVE, '', null, 7, ' ERP', 'ERP '])('rejects %p', (v) => expect(fails('participant_id', v)).toEqual(['participant_id']));
    it('explains whitespace plainly', () => {
      expect(messages(CreateRoughDiamondDto, { ...valid, participant_id: ' x ' })).toEqual(['participant_id must not have leading or trailing whitespace']);
    });
  });

  describe('participant_timestamp', () => {
    it('accepts an offset date-time', () => expect(fails('participant_timestamp', '2024-05-01T10:00:00+02:00')).toEqual([]));
    it.each([REMOVE, 'not a date', '2024-02-30T00:00:00Z', null])('rejects %p', (v) =>
      expect(fails('participant_timestamp', v)).toEqual(['participant_timestamp']),
    );
  });

  describe('rough', () => {
    it.each([REMOVE, null, 'x', [{ carats: 1 }]])('rejects %p', (v) =>
      expect(failedPaths(CreateRoughDiamondDto, withField(valid, 'rough', v))[0]).toBe('rough'),
    );
  });

  describe('assurance_level', () => {
    it.each(['assured', 'declared', REMOVE])('accepts %p', (v) => expect(fails('assurance_level', v)).toEqual([]));
    it.each(['ASSURED', 'other', null])('rejects %p', (v) => expect(fails('assurance_level', v)).toEqual(['assurance_level']));
  });

  it('box_description must be a string', () => {
    expect(fails('box_description', 'x')).toEqual([]);
    expect(fails('box_description', 1)).toEqual(['box_description']);
  });

  it('entity_specific_tags allows extra keys and checks dit_session_id', () => {
    expect(fails('entity_specific_tags', { dit_session_id: null, x: 1 })).toEqual([]);
    expect(fails('entity_specific_tags', { dit_session_id: 1 })).toEqual(['entity_specific_tags']);
    expect(fails('entity_specific_tags', 'tags')).toEqual(['entity_specific_tags']);
  });

  describe.each(['sight_no', 'sight_year'])('%s', (key) => {
    it('accepts an integer', () => expect(fails(key, 2024)).toEqual([]));
    it.each([1.5, '2024', true])('rejects %p', (v) => expect(fails(key, v)).toEqual([key]));
  });

  it('supplementary_tags must be an object', () => {
    expect(fails('supplementary_tags', { a: [1] })).toEqual([]);
    expect(fails('supplementary_tags', [1])).toEqual(['supplementary_tags']);
  });
});

describe('RoughSchemaDto', () => {
  const rough = (patch: Record<string, unknown>) => failedPaths(RoughSchemaDto, { carats: 1, ...patch });

  describe('carats', () => {
    it.each([1, 0.5, '1.25', '12'])('accepts %p', (v) => expect(rough({ carats: v })).toEqual([]));
    it.each([0, -1, '0', '-1', 'abc', '1e5', NaN, Infinity, true, null])('rejects %p', (v) => expect(rough({ carats: v })).toEqual(['carats']));
    it('is required', () => expect(failedPaths(RoughSchemaDto, {})).toEqual(['carats']));
  });

  it('colour is a single letter D..Z', () => {
    expect(rough({ colour: 'Z' })).toEqual([]);
    expect(rough({ colour: 'C' })).toEqual(['colour']);
    expect(rough({ colour: 'd' })).toEqual(['colour']);
    expect(rough({ colour: 'DE' })).toEqual(['colour']);
  });

  it('fancy_colour uses the fancy colour codes', () => {
    expect(rough({ fancy_colour: 'BN_PL' })).toEqual([]);
    expect(rough({ fancy_colour: 'PINK' })).toEqual(['fancy_colour']);
  });

  it('fancy_colour_intensity uses its enum', () => {
    expect(rough({ fancy_colour_intensity: 'FCD' })).toEqual([]);
    expect(rough({ fancy_colour_intensity: 'VS' })).toEqual(['fancy_colour_intensity']);
  });

  it('fluorescence_colour uses its enum', () => {
    expect(rough({ fluorescence_colour: 'N' })).toEqual([]);
    expect(rough({ fluorescence_colour: 'X' })).toEqual(['fluorescence_colour']);
  });

  it('fluorescence_intensity uses its enum', () => {
    expect(rough({ fluorescence_intensity: 'VSL' })).toEqual([]);
    expect(rough({ fluorescence_intensity: 'FV' })).toEqual(['fluorescence_intensity']);
  });

  it.each(['display_colour', 'fancy_colour_overtone', 'model', 'quality', 'stress'])('%s is a free string', (key) => {
    expect(rough({ [key]: 'anything' })).toEqual([]);
    expect(rough({ [key]: 5 })).toEqual([key]);
  });

  it('rejects unknown fields', () => {
    expect(rough({ weight: 1 })).toEqual(['weight']);
    expect(messages(RoughSchemaDto, { carats: 1, weight: 1 })).toEqual(['extra fields not permitted']);
  });
});
