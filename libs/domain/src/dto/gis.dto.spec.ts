import { ValidateJsonRequestDto, VerifyRequestDto } from './gis.dto';
import { REMOVE, failedPaths, withField } from './spec-helpers';

describe('VerifyRequestDto', () => {
  const valid = { carat_weight: 1.02, shape_group: 'Round' };
  const fails = (key: string, value: unknown) => failedPaths(VerifyRequestDto, withField(valid, key, value));

  it('accepts a valid body', () => expect(failedPaths(VerifyRequestDto, valid)).toEqual([]));
  it.each([REMOVE, 0, -1, '1.02', NaN, Infinity, null])('carat_weight rejects %p', (v) => expect(fails('carat_weight', v)).toEqual(['carat_weight']));
  it.each(['Round', 'Cushion', 'Cushion Modified Brilliant', 'Square Emerald', 'Kite', 'Other'])('shape_group accepts the shape or group %p', (v) =>
    expect(fails('shape_group', v)).toEqual([]),
  );
  it.each([REMOVE, 'round', 'Blob', '', 3])('shape_group rejects %p', (v) => expect(fails('shape_group', v)).toEqual(['shape_group']));
  it('rejects unknown fields', () => expect(fails('shape', 'Round')).toEqual(['shape']));
});

describe('ValidateJsonRequestDto', () => {
  const valid = {
    shape_group: 'Round',
    estimated_weight_crt: 1.01,
    girdle_avg_mm: 6.5,
    table_avg_mm: 3.7,
    total_depth_mm: 4.0,
  };
  const fails = (key: string, value: unknown) => failedPaths(ValidateJsonRequestDto, withField(valid, key, value));

  it('accepts the required members alone and with the optional angles', () => {
    expect(failedPaths(ValidateJsonRequestDto, valid)).toEqual([]);
    expect(failedPaths(ValidateJsonRequestDto, { ...valid, crown_angle_deg: 34.5, pavillion_angle_deg: 40.8 })).toEqual([]);
    expect(failedPaths(ValidateJsonRequestDto, { ...valid, crown_angle_deg: null, pavillion_angle_deg: 0 })).toEqual([]);
  });
  it('shape_group is a required non-empty string (support is decided by the service)', () => {
    expect(fails('shape_group', 'Kite')).toEqual([]);
    expect(fails('shape_group', REMOVE)).toEqual(['shape_group']);
    expect(fails('shape_group', '')).toEqual(['shape_group']);
  });
  it.each(['estimated_weight_crt', 'girdle_avg_mm', 'table_avg_mm', 'total_depth_mm'])('%s is a required number >= 0', (key) => {
    expect(fails(key, 0)).toEqual([]);
    expect(fails(key, REMOVE)).toEqual([key]);
    expect(fails(key, -0.01)).toEqual([key]);
    expect(fails(key, '1.0')).toEqual([key]);
    expect(fails(key, null)).toEqual([key]);
  });
  it.each(['crown_angle_deg', 'pavillion_angle_deg'])('%s is an optional number >= 0', (key) => {
    expect(fails(key, -1)).toEqual([key]);
    expect(fails(key, 'x')).toEqual([key]);
  });
  it('rejects unknown fields (e.g. the reported names)', () => {
    expect(fails('crown_angle_avg_deg', 34)).toEqual(['crown_angle_avg_deg']);
  });
});
