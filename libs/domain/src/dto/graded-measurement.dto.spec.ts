import { GradingSubmissionDto } from './gis.dto';
import { REMOVE, failedPaths, withField } from './spec-helpers';
import { UserGradedMeasurementDto } from './user-graded-measurement.dto';

const FULL = {
  carats: '1.01',
  crown_angle: 34.5,
  crown_height: '15.0',
  depth: 4.1,
  depth_percent: '61.8',
  diameter_maximum: 6.52,
  diameter_minimum: '6.48',
  length: 6.52,
  pavillion_angle: '40.8',
  pavillion_percent: 43,
  table_percent: '57',
  width: 6.48,
  clarity: 'VS2',
  colour: 'G',
  culet_condition: 'P',
  culet_size: 'N',
  cut_grade: 'VG',
  fancy_colour: 'B',
  fancy_colour_intensity: 'D',
  fluorescence_colour: 'Y',
  fluorescence_intensity: 'M',
  girdle_condition: 'P',
  girdle_thickness_from: 'Medium',
  girdle_thickness_to: 'Thick',
  grading_lab: 'GIA',
  polish_quality: 'EX',
  shape: 'Cushion Modified Brilliant',
  symmetry: 'VG',
  validation_level: 'verification',
  display_colour: 'G',
  fancy_colour_overtone: 'none',
  grader_certificate_number: 'C-1',
  grader_clarity_characteristics: 'x',
  grader_colour: 'G',
  grader_report_comments: 'ok',
  grader_report_number: 'R-1',
  grader_report_type: 'full',
  grader_shape: 'Cushion',
  grading_certificate_description: 'd',
  grading_certificate_filename: 'cert.pdf',
  grading_certificate_hash: 'ab'.repeat(32),
  measurement_text: '6.52 x 6.48 x 4.10',
  graded_date: '2024-06-01T00:00:00Z',
  grader_inscription_numbers: ['GIA 1234567890'],
  supplementary_files: { report: 'ab'.repeat(32) },
};

const ENUMERATED: [string, string, string][] = [
  ['clarity', 'I3', 'I4'],
  ['colour', 'D', 'AA'],
  ['culet_condition', 'A', 'Z'],
  ['culet_size', 'SL', 'XS'],
  ['cut_grade', 'G', 'GOOD'],
  ['fancy_colour', 'CH', 'CHX'],
  ['fancy_colour_intensity', 'F', 'FF'],
  ['fluorescence_colour', 'R', 'RED'],
  ['fluorescence_intensity', 'N', 'NONE'],
  ['girdle_condition', 'F', 'X'],
  ['girdle_thickness_from', 'Slightly Thin', 'Slim'],
  ['girdle_thickness_to', 'Extremely Thick', 'Thicc'],
  ['grading_lab', 'Other', 'ACME'],
  ['polish_quality', 'VG-EX', 'VGEX'],
  ['shape', 'Heart', 'Hearts'],
  ['symmetry', 'F-G', 'FG'],
  ['validation_level', 'validation', 'verified'],
];
const DECIMALS = [
  'carats',
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
];
const STRINGS = [
  'display_colour',
  'fancy_colour_overtone',
  'grader_certificate_number',
  'grader_clarity_characteristics',
  'grader_colour',
  'grader_report_comments',
  'grader_report_number',
  'grader_report_type',
  'grader_shape',
  'grading_certificate_description',
  'grading_certificate_filename',
  'grading_certificate_hash',
  'measurement_text',
];

describe.each([
  ['UserGradedMeasurementDto', UserGradedMeasurementDto],
  ['GradingSubmissionDto', GradingSubmissionDto],
] as const)('%s', (_name, cls) => {
  const fails = (key: string, value: unknown) => failedPaths(cls, withField(FULL, key, value));

  it('accepts every GradingDataView member', () => expect(failedPaths(cls, FULL)).toEqual([]));

  it.each(ENUMERATED)('%s accepts %p and rejects %p', (key, good, bad) => {
    expect(fails(key, good)).toEqual([]);
    expect(fails(key, bad)).toEqual([key]);
  });

  it.each(DECIMALS)('%s takes a positive decimal number or text', (key) => {
    expect(fails(key, 2.5)).toEqual([]);
    expect(fails(key, '2.50')).toEqual([]);
    expect(fails(key, '-2')).toEqual([key]);
    expect(fails(key, 'two')).toEqual([key]);
    expect(fails(key, 0)).toEqual([key]);
  });

  it.each(STRINGS)('%s is a string', (key) => {
    expect(fails(key, 'text')).toEqual([]);
    expect(fails(key, 42)).toEqual([key]);
  });

  it('graded_date is an ISO date-time', () => {
    expect(fails('graded_date', '2024-06-01')).toEqual([]);
    expect(fails('graded_date', '01/06/2024')).toEqual(['graded_date']);
  });

  it('grader_inscription_numbers is an array of strings', () => {
    expect(fails('grader_inscription_numbers', [])).toEqual([]);
    expect(fails('grader_inscription_numbers', 'GIA 1')).toEqual(['grader_inscription_numbers']);
    expect(fails('grader_inscription_numbers', ['a', 1])).toEqual(['grader_inscription_numbers']);
  });

  it('supplementary_files maps strings to strings', () => {
    expect(fails('supplementary_files', { a: 'b' })).toEqual([]);
    expect(fails('supplementary_files', { a: 1 })).toEqual(['supplementary_files']);
    expect(fails('supplementary_files', ['a'])).toEqual(['supplementary_files']);
  });

  it.each(['id', 'is_active', 'is_selectable', 'source'])('rejects the record member %s', (key) => {
    expect(fails(key, 'x')).toEqual([key]);
  });
});

describe('UserGradedMeasurementDto optionality', () => {
  it('accepts an empty body and nulls everywhere', () => {
    expect(failedPaths(UserGradedMeasurementDto, {})).toEqual([]);
    const nulls = Object.fromEntries(Object.keys(FULL).map((k) => [k, null]));
    expect(failedPaths(UserGradedMeasurementDto, nulls)).toEqual([]);
  });
});

describe('GradingSubmissionDto required members', () => {
  it.each(['grader_certificate_number', 'grader_report_number', 'grading_lab', 'graded_date', 'carats', 'shape'])('%s is required and not nullable', (key) => {
    expect(failedPaths(GradingSubmissionDto, withField(FULL, key, REMOVE))).toEqual([key]);
    expect(failedPaths(GradingSubmissionDto, withField(FULL, key, null))).toEqual([key]);
  });

  it('the other members are optional', () => {
    const minimal = {
      grader_certificate_number: 'C-1',
      grader_report_number: 'R-1',
      grading_lab: 'IGI',
      graded_date: '2024-06-01T00:00:00Z',
      carats: 1.01,
      shape: 'Round',
    };
    expect(failedPaths(GradingSubmissionDto, minimal)).toEqual([]);
    expect(failedPaths(GradingSubmissionDto, { ...minimal, grader_certificate_number: '' })).toEqual(['grader_certificate_number']);
  });
});
