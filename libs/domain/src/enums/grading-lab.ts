import { enumObject } from './enum-helpers';

/**
 * GradingLab. NOT FROM THE SPEC: the spec says "a fixed list of 19 lab codes ... including the value
 * `Other`" and omits them. This is our own list of 19 common grading-laboratory abbreviations. If the
 * real list becomes known, replace it here (and in the pinned test) - nothing else depends on the codes.
 */
export const GRADING_LAB_VALUES = [
  'GIA',
  'IGI',
  'HRD',
  'AGS',
  'GCAL',
  'EGL',
  'GSI',
  'PGS',
  'DCLA',
  'SGL',
  'IIDGR',
  'NGTC',
  'CGL',
  'GHI',
  'IGL',
  'AIGS',
  'GRS',
  'SSEF',
  'Other',
] as const;
export const GradingLab = enumObject(GRADING_LAB_VALUES);
export type GradingLab = (typeof GRADING_LAB_VALUES)[number];
