import { isOneOf } from '../enums/enum-helpers';
import { SHAPE_GROUP_VALUES, SHAPE_VALUES, Shape, ShapeGroup } from '../enums/shape';

/** Named shape groups and their member shapes (DESIGN.md "GIS"). Everything else is group `Other`. */
export const SHAPE_GROUPS: Readonly<Record<Exclude<ShapeGroup, 'Other'>, readonly Shape[]>> = Object.freeze({
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

const GROUP_BY_SHAPE = new Map<string, ShapeGroup>();
for (const [group, shapes] of Object.entries(SHAPE_GROUPS)) {
  for (const shape of shapes) GROUP_BY_SHAPE.set(shape, group as ShapeGroup);
}

/** Group of a shape; unknown shapes, `Other`, null and undefined fall back to `Other`. */
export function shapeGroupOf(shape: Shape | string | null | undefined): ShapeGroup {
  return (shape != null && GROUP_BY_SHAPE.get(shape)) || 'Other';
}

/** True for the named groups; `Other` is not supported by validate (`shape_not_supported`). */
export function isSupportedShapeGroup(group: ShapeGroup | string): boolean {
  return group !== 'Other' && isOneOf(SHAPE_GROUP_VALUES, group);
}

/**
 * Resolves what a lab sent as `shape_group`: a group name stands for itself, a Shape value for its
 * group. Anything else: undefined.
 */
export function resolveShapeGroup(input: string): ShapeGroup | undefined {
  if (isOneOf(SHAPE_GROUP_VALUES, input)) return input;
  if (isOneOf(SHAPE_VALUES, input)) return shapeGroupOf(input);
  return undefined;
}

/** Every value accepted as `shape_group` by verify: all Shape values and all group names. */
export const SHAPE_GROUP_INPUT_VALUES: readonly string[] = Object.freeze(Array.from(new Set<string>([...SHAPE_VALUES, ...SHAPE_GROUP_VALUES])));
