import { enumObject } from './enum-helpers';

/**
 * Shape. The spec's table ends with the line "Trilliant, Trillion-free value `Other`", an artefact of
 * the source document. Decision: read it as three values, `Trilliant`, `Trillion` and `Other`, where
 * `Other` is the free/fallback value for any cut not in the list. Both Trilliant and Trillion are kept
 * because both spellings are in use in the trade; neither belongs to a named shape group (they fall
 * back to group `Other`, see rules/shape-groups.ts).
 */
export const SHAPE_VALUES = [
  'Asscher',
  'Baguette',
  'Briolette',
  'Bullets',
  'Calf',
  'Cushion',
  'Cushion Modified Brilliant',
  'Emerald',
  'European Cut',
  'Flanders',
  'Half Moon',
  'Heart',
  'Hexagonal',
  'Kite',
  'Lozenge',
  'Marquise',
  'Octagonal',
  'Old Miner',
  'Oval',
  'Pear',
  'Pentagonal',
  'Princess',
  'Radiant',
  'Rectangle',
  'Rose',
  'Round',
  'Shield',
  'Square',
  'Square Emerald',
  'Square Radiant',
  'Star',
  'Tapered Baguette',
  'Tapered Bullet',
  'Trapezoid',
  'Triangle',
  'Trilliant',
  'Trillion',
  'Other',
] as const;
export const Shape = enumObject(SHAPE_VALUES);
export type Shape = (typeof SHAPE_VALUES)[number];

/**
 * Shape groups used by the grading integration (DESIGN.md "GIS"). Any shape outside the named groups
 * falls back to `Other`, which verify accepts and validate rejects (`shape_not_supported`).
 */
export const SHAPE_GROUP_VALUES = ['Round', 'Oval', 'Pear', 'Marquise', 'Heart', 'Princess', 'Cushion', 'Emerald', 'Radiant', 'Asscher', 'Other'] as const;
export const ShapeGroup = enumObject(SHAPE_GROUP_VALUES);
export type ShapeGroup = (typeof SHAPE_GROUP_VALUES)[number];
