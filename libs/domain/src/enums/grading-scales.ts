import { enumObject } from './enum-helpers';

/** Grading scales, exactly as the spec's "Enumerations" table (same order). */

export const CLARITY_VALUES = ['FL', 'IF', 'LC', 'VVS1', 'VVS2', 'VS1', 'VS2', 'SI1', 'SI2', 'SI3', 'I1', 'I2', 'I3', 'P1', 'P2', 'P3'] as const;
export const Clarity = enumObject(CLARITY_VALUES);
export type Clarity = (typeof CLARITY_VALUES)[number];

/** "D to Z, one letter each". */
export const COLOUR_VALUES = ['D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z'] as const;
export const Colour = enumObject(COLOUR_VALUES);
export type Colour = (typeof COLOUR_VALUES)[number];

export const CULET_CONDITION_VALUES = ['P', 'A', 'C'] as const;
export const CuletCondition = enumObject(CULET_CONDITION_VALUES);
export type CuletCondition = (typeof CULET_CONDITION_VALUES)[number];

export const CULET_SIZE_VALUES = ['EL', 'VL', 'L', 'SL', 'M', 'S', 'VS', 'N'] as const;
export const CuletSize = enumObject(CULET_SIZE_VALUES);
export type CuletSize = (typeof CULET_SIZE_VALUES)[number];

export const CUT_GRADE_VALUES = ['I', 'EX', 'VG', 'G', 'F', 'P', 'NA'] as const;
export const CutGrade = enumObject(CUT_GRADE_VALUES);
export type CutGrade = (typeof CUT_GRADE_VALUES)[number];

export const FANCY_COLOUR_VALUES = [
  'BK',
  'B',
  'B_G',
  'B_GY',
  'BN',
  'BN_O',
  'BN_P',
  'BN_PL',
  'BN_R',
  'BN_Y',
  'CH',
  'CM',
  'CG',
  'GY',
  'GY_B',
  'GY_G',
  'GY_PL',
  'GY_V',
  'G',
  'G_B',
  'G_GY',
  'G_Y',
  'O',
  'O_BN',
  'O_Y',
  'P',
  'P_BN',
  'P_PL',
  'PL',
  'PL_BN',
  'PL_GY',
  'PL_P',
  'PL_R',
  'R',
  'R_BN',
  'R_PL',
  'V',
  'V_GY',
  'Y',
  'Y_BN',
  'Y_G',
  'Y_GY',
  'Y_O',
  'W',
  'X',
] as const;
export const FancyColour = enumObject(FANCY_COLOUR_VALUES);
export type FancyColour = (typeof FANCY_COLOUR_VALUES)[number];

export const FANCY_COLOUR_INTENSITY_VALUES = ['F', 'VL', 'L', 'FL', 'FC', 'FCD', 'I', 'FV', 'D'] as const;
export const FancyColourIntensity = enumObject(FANCY_COLOUR_INTENSITY_VALUES);
export type FancyColourIntensity = (typeof FANCY_COLOUR_INTENSITY_VALUES)[number];

export const FLUORESCENCE_COLOUR_VALUES = ['B', 'W', 'Y', 'O', 'R', 'G', 'N'] as const;
export const FluorescenceColour = enumObject(FLUORESCENCE_COLOUR_VALUES);
export type FluorescenceColour = (typeof FLUORESCENCE_COLOUR_VALUES)[number];

export const FLUORESCENCE_INTENSITY_VALUES = ['VS', 'S', 'M', 'F', 'SL', 'VSL', 'N'] as const;
export const FluorescenceIntensity = enumObject(FLUORESCENCE_INTENSITY_VALUES);
export type FluorescenceIntensity = (typeof FLUORESCENCE_INTENSITY_VALUES)[number];

export const GIRDLE_CONDITION_VALUES = ['P', 'F', 'B'] as const;
export const GirdleCondition = enumObject(GIRDLE_CONDITION_VALUES);
export type GirdleCondition = (typeof GIRDLE_CONDITION_VALUES)[number];

export const GIRDLE_THICKNESS_VALUES = [
  'Extremely Thick',
  'Very Thick',
  'Thick',
  'Slightly Thick',
  'Medium',
  'Thin',
  'Slightly Thin',
  'Very Thin',
  'Extremely Thin',
] as const;
export const GirdleThickness = enumObject(GIRDLE_THICKNESS_VALUES);
export type GirdleThickness = (typeof GIRDLE_THICKNESS_VALUES)[number];

/** Also the value set of `polish_quality`. */
export const SYMMETRY_VALUES = ['I', 'EX', 'VG-EX', 'VG', 'G-VG', 'G', 'F-G', 'F', 'P'] as const;
export const Symmetry = enumObject(SYMMETRY_VALUES);
export type Symmetry = (typeof SYMMETRY_VALUES)[number];
