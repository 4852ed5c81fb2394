import { SHAPE_VALUES } from '../enums/shape';
import { SHAPE_GROUPS, SHAPE_GROUP_INPUT_VALUES, isSupportedShapeGroup, resolveShapeGroup, shapeGroupOf } from './shape-groups';

describe('shape groups', () => {
  it('has the DESIGN.md groups and members', () => {
    expect(SHAPE_GROUPS).toEqual({
      Round: ['Round'],
      Oval: ['Oval'],
      Pear: ['Pear'],
      Marquise: ['Marquise'],
      Heart: ['Heart'],
      Princess: ['Princess'],
      Cushion: ['Cushion', 'Cushion Modified Brilliant'],
      Emerald: ['Emerald', 'Square Emerald'],
      Radiant: ['Radiant', 'Square Radiant'],
      Asscher: ['Asscher'],
    });
  });

  it.each([
    ['Round', 'Round'],
    ['Cushion Modified Brilliant', 'Cushion'],
    ['Square Emerald', 'Emerald'],
    ['Square Radiant', 'Radiant'],
    ['Asscher', 'Asscher'],
    ['Princess', 'Princess'],
  ])('%s is in group %s', (shape, group) => expect(shapeGroupOf(shape)).toBe(group));

  it.each(['Kite', 'Trilliant', 'Trillion', 'Other', 'Baguette', 'round', 'Nonsense', '', null, undefined])('%p falls back to Other', (shape) =>
    expect(shapeGroupOf(shape)).toBe('Other'),
  );

  it('every Shape value maps to a group', () => {
    const grouped = SHAPE_VALUES.filter((s) => shapeGroupOf(s) !== 'Other');
    expect(grouped).toEqual([
      'Asscher',
      'Cushion',
      'Cushion Modified Brilliant',
      'Emerald',
      'Heart',
      'Marquise',
      'Oval',
      'Pear',
      'Princess',
      'Radiant',
      'Round',
      'Square Emerald',
      'Square Radiant',
    ]);
  });

  it('Other is not supported by validate; named groups are', () => {
    expect(isSupportedShapeGroup('Other')).toBe(false);
    expect(isSupportedShapeGroup('Cushion')).toBe(true);
    expect(isSupportedShapeGroup('Kite')).toBe(false);
  });

  it('resolveShapeGroup reads a group name or a shape', () => {
    expect(resolveShapeGroup('Emerald')).toBe('Emerald');
    expect(resolveShapeGroup('Square Emerald')).toBe('Emerald');
    expect(resolveShapeGroup('Kite')).toBe('Other');
    expect(resolveShapeGroup('emerald')).toBeUndefined();
  });

  it('accepts every shape and group as verify input, without duplicates', () => {
    expect(SHAPE_GROUP_INPUT_VALUES).toHaveLength(new Set(SHAPE_GROUP_INPUT_VALUES).size);
    expect(SHAPE_GROUP_INPUT_VALUES).toHaveLength(SHAPE_VALUES.length);
  });
});
