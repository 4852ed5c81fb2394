import type { GradedMeasurementSource, ValidationLevel } from '../enums/grading';
import type { GradingLab } from '../enums/grading-lab';
import type {
  Clarity,
  Colour,
  CuletCondition,
  CuletSize,
  CutGrade,
  FancyColour,
  FancyColourIntensity,
  FluorescenceColour,
  FluorescenceIntensity,
  GirdleCondition,
  GirdleThickness,
  Symmetry,
} from '../enums/grading-scales';
import type { Shape } from '../enums/shape';

/**
 * Graded-measurement data: every GradingDataView member except the four record members.
 * Decimal members are decimal text.
 */
export interface GradingData {
  // Decimal text
  carats?: string | null;
  crown_angle?: string | null;
  crown_height?: string | null;
  depth?: string | null;
  depth_percent?: string | null;
  diameter_maximum?: string | null;
  diameter_minimum?: string | null;
  length?: string | null;
  pavillion_angle?: string | null;
  pavillion_percent?: string | null;
  table_percent?: string | null;
  width?: string | null;
  // Enumerated
  clarity?: Clarity | null;
  colour?: Colour | null;
  culet_condition?: CuletCondition | null;
  culet_size?: CuletSize | null;
  cut_grade?: CutGrade | null;
  fancy_colour?: FancyColour | null;
  fancy_colour_intensity?: FancyColourIntensity | null;
  fluorescence_colour?: FluorescenceColour | null;
  fluorescence_intensity?: FluorescenceIntensity | null;
  girdle_condition?: GirdleCondition | null;
  girdle_thickness_from?: GirdleThickness | null;
  girdle_thickness_to?: GirdleThickness | null;
  grading_lab?: GradingLab | null;
  polish_quality?: Symmetry | null;
  shape?: Shape | null;
  symmetry?: Symmetry | null;
  validation_level?: ValidationLevel | null;
  // Free strings
  display_colour?: string | null;
  fancy_colour_overtone?: string | null;
  grader_certificate_number?: string | null;
  grader_clarity_characteristics?: string | null;
  grader_colour?: string | null;
  grader_report_comments?: string | null;
  grader_report_number?: string | null;
  grader_report_type?: string | null;
  grader_shape?: string | null;
  grading_certificate_description?: string | null;
  grading_certificate_filename?: string | null;
  grading_certificate_hash?: string | null;
  measurement_text?: string | null;
  // Other
  /** ISO 8601 date-time. */
  graded_date?: string | null;
  grader_inscription_numbers?: string[] | null;
  supplementary_files?: Record<string, string> | null;
}

/** GradingDataView: a graded-measurement record. */
export interface GradingDataView extends GradingData {
  id: string;
  is_active: boolean;
  is_selectable: boolean;
  source: GradedMeasurementSource;
}

/** Response of `GET {base_url}/diamonds/{diamond_id}/graded-measurements`. */
export interface GradedMeasurementsResponse {
  results: GradingDataView[];
}

/**
 * A GIS grading submission after validation, decimals normalised to text (the `data` of
 * `grading.submitted`). The lab must send these members; the rest are optional.
 */
export interface GradingSubmission extends GradingData {
  grader_certificate_number: string;
  grader_report_number: string;
  grading_lab: GradingLab;
  graded_date: string;
  carats: string;
  shape: Shape;
}
