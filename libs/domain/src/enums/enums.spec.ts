import * as E from './index';

/** Pins every enumeration's exact value set, in order. A change here is a contract change. */
const PINNED: [string, readonly string[], readonly string[]][] = [
  ['Clarity', E.CLARITY_VALUES, ['FL', 'IF', 'LC', 'VVS1', 'VVS2', 'VS1', 'VS2', 'SI1', 'SI2', 'SI3', 'I1', 'I2', 'I3', 'P1', 'P2', 'P3']],
  ['Colour', E.COLOUR_VALUES, 'DEFGHIJKLMNOPQRSTUVWXYZ'.split('')],
  ['CuletCondition', E.CULET_CONDITION_VALUES, ['P', 'A', 'C']],
  ['CuletSize', E.CULET_SIZE_VALUES, ['EL', 'VL', 'L', 'SL', 'M', 'S', 'VS', 'N']],
  ['CutGrade', E.CUT_GRADE_VALUES, ['I', 'EX', 'VG', 'G', 'F', 'P', 'NA']],
  [
    'FancyColour',
    E.FANCY_COLOUR_VALUES,
    [
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
    ],
  ],
  ['FancyColourIntensity', E.FANCY_COLOUR_INTENSITY_VALUES, ['F', 'VL', 'L', 'FL', 'FC', 'FCD', 'I', 'FV', 'D']],
  ['FluorescenceColour', E.FLUORESCENCE_COLOUR_VALUES, ['B', 'W', 'Y', 'O', 'R', 'G', 'N']],
  ['FluorescenceIntensity', E.FLUORESCENCE_INTENSITY_VALUES, ['VS', 'S', 'M', 'F', 'SL', 'VSL', 'N']],
  ['GirdleCondition', E.GIRDLE_CONDITION_VALUES, ['P', 'F', 'B']],
  [
    'GirdleThickness',
    E.GIRDLE_THICKNESS_VALUES,
    ['Extremely Thick', 'Very Thick', 'Thick', 'Slightly Thick', 'Medium', 'Thin', 'Slightly Thin', 'Very Thin', 'Extremely Thin'],
  ],
  ['Symmetry', E.SYMMETRY_VALUES, ['I', 'EX', 'VG-EX', 'VG', 'G-VG', 'G', 'F-G', 'F', 'P']],
  [
    'Shape',
    E.SHAPE_VALUES,
    [
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
    ],
  ],
  ['ShapeGroup', E.SHAPE_GROUP_VALUES, ['Round', 'Oval', 'Pear', 'Marquise', 'Heart', 'Princess', 'Cushion', 'Emerald', 'Radiant', 'Asscher', 'Other']],
  [
    'GradingLab',
    E.GRADING_LAB_VALUES,
    ['GIA', 'IGI', 'HRD', 'AGS', 'GCAL', 'EGL', 'GSI', 'PGS', 'DCLA', 'SGL', 'IIDGR', 'NGTC', 'CGL', 'GHI', 'IGL', 'AIGS', 'GRS', 'SSEF', 'Other'],
  ],
  ['GradedMeasurementSource', E.GRADED_MEASUREMENT_SOURCE_VALUES, ['gis', 'user']],
  ['ValidationLevel', E.VALIDATION_LEVEL_VALUES, ['validation', 'verification']],
  ['AssuranceLevel', E.ASSURANCE_LEVEL_VALUES, ['assured', 'declared']],
  ['LifecycleState', E.LIFECYCLE_STATE_VALUES, ['rough', 'split', 'polished', 'destroyed']],
  ['CurrentStage', E.CURRENT_STAGE_VALUES, ['rough', 'polished']],
  ['PossessionState', E.POSSESSION_STATE_VALUES, ['held', 'in_transit']],
  ['UnlockStatus', E.UNLOCK_STATUS_VALUES, ['locked', 'unlocked']],
  ['VerificationStatus', E.VERIFICATION_STATUS_VALUES, ['Pending', 'Verified', 'Unverifiable']],
  ['ValidationResult', E.VALIDATION_RESULT_VALUES, ['matched', 'out_of_tolerance', 'missing', 'zero']],
  ['GisStatus', E.GIS_STATUS_VALUES, ['eligible', 'missing_report', 'invalid_report', 'not_processable', 'missing_data', 'shape_not_supported']],
  ['DataRequestStatus', E.DATA_REQUEST_STATUS_VALUES, ['pending', 'success', 'error']],
  ['DataRequestType', E.DATA_REQUEST_TYPE_VALUES, ['three_d_plan']],
  ['ShipmentType', E.SHIPMENT_TYPE_VALUES, ['rough', 'polished']],
  ['ShipmentStatus', E.SHIPMENT_STATUS_VALUES, ['action_required', 'completed']],
  ['TransferState', E.TRANSFER_STATE_VALUES, ['transfer_in_pending', 'transfer_in_confirmed', 'transfer_in_rejected']],
  ['Role', E.ROLE_VALUES, ['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant']],
  ['FileKind', E.FILE_KIND_VALUES, ['image', 'video', 'scan', 'scan_report', 'grading_certificate', 'supplementary']],
  ['DeleteFailureReason', E.DELETE_FAILURE_REASON_VALUES, ['not_found', 'not_owner', 'unlocked', 'descendant_unlocked', 'has_descendants', 'in_transit']],
  [
    'GisIneligibilityReason',
    E.GIS_INELIGIBILITY_REASON_VALUES,
    [
      'diamond_has_been_deleted',
      'diamond_is_not_polished',
      'diamond_has_no_scan_report',
      'scan_report_not_supported',
      'scan_report_parse_error',
      'shape_not_supported',
    ],
  ],
  ['ScanReportErrorType', E.SCAN_REPORT_ERROR_TYPE_VALUES, ['value_not_a_decimal']],
];

describe('enumerations', () => {
  it.each(PINNED)('%s has exactly the pinned values, in order', (_name, actual, expected) => {
    expect([...actual]).toEqual(expected);
    expect(new Set(actual).size).toBe(actual.length);
  });

  it.each(PINNED)('%s lookup object maps each value to itself', (name) => {
    const obj = (E as unknown as Record<string, Record<string, string>>)[name];
    const values = PINNED.find(([n]) => n === name)![1];
    expect(Object.keys(obj)).toEqual([...values]);
    for (const v of values) expect(obj[v]).toBe(v);
    expect(Object.isFrozen(obj)).toBe(true);
  });

  it('has the sizes the spec implies', () => {
    expect(E.COLOUR_VALUES).toHaveLength(23);
    expect(E.FANCY_COLOUR_VALUES).toHaveLength(45);
    expect(E.GRADING_LAB_VALUES).toHaveLength(19);
    expect(E.GRADING_LAB_VALUES).toContain('Other');
    expect(E.SHAPE_VALUES).toHaveLength(38);
  });

  it('gives readable access for values that are not identifiers', () => {
    expect(E.Symmetry['VG-EX']).toBe('VG-EX');
    expect(E.GirdleThickness['Extremely Thick']).toBe('Extremely Thick');
    expect(E.Shape['Cushion Modified Brilliant']).toBe('Cushion Modified Brilliant');
    expect(E.LifecycleState.rough).toBe('rough');
  });

  it('isOneOf is a strict membership test', () => {
    expect(E.isOneOf(E.CLARITY_VALUES, 'VVS1')).toBe(true);
    expect(E.isOneOf(E.CLARITY_VALUES, 'vvs1')).toBe(false);
    expect(E.isOneOf(E.CLARITY_VALUES, 1)).toBe(false);
    expect(E.isOneOf(E.CLARITY_VALUES, 'toString')).toBe(false);
  });
});
