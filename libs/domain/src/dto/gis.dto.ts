import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsPositive, IsString, Max, MaxLength, Min } from 'class-validator';
import { GRADING_LAB_VALUES, GradingLab } from '../enums/grading-lab';
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { SHAPE_GROUP_INPUT_VALUES } from '../rules/shape-groups';
import { GradingFieldsDto } from './grading-fields.dto';
import { CARATS_MAX, ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight, IsIsoDateTime } from './validators';

const FINITE = { allowNaN: false, allowInfinity: false } as const;

/** Body of `POST {gis_url}/v2/diamonds/{diamond_id}/verify`. */
export class VerifyRequestDto {
  @IsNumber(FINITE)
  @IsPositive()
  @Max(CARATS_MAX)
  carat_weight!: number;

  /** A Shape value (mapped to its group) or a shape-group name. */
  @IsString()
  @IsIn(SHAPE_GROUP_INPUT_VALUES, { message: 'shape_group must be a shape or a shape group name' })
  shape_group!: string;
}

/** Body of `POST {gis_url}/v2/diamonds/{diamond_id}/validate-json`. */
export class ValidateJsonRequestDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  shape_group!: string;

  @IsNumber(FINITE) @Min(0) @Max(CARATS_MAX) estimated_weight_crt!: number;
  @IsNumber(FINITE) @Min(0) girdle_avg_mm!: number;
  @IsNumber(FINITE) @Min(0) table_avg_mm!: number;
  @IsNumber(FINITE) @Min(0) total_depth_mm!: number;

  /** Compared when available; reported as `crown_angle_avg_deg`. */
  @IsOptional() @IsNumber(FINITE) @Min(0) crown_angle_deg?: number | null;
  /** Compared when available; reported as `pavilion_angle_avg_deg`. */
  @IsOptional() @IsNumber(FINITE) @Min(0) pavillion_angle_deg?: number | null;
}

/**
 * Body of `POST {gis_url}/v2/diamonds/{diamond_id}/grading` (grading lab): a flat GradingDataView
 * (DESIGN.md "GIS"). Unknown fields are rejected.
 */
export class GradingSubmissionDto extends GradingFieldsDto {
  @IsString() @IsNotEmpty() @MaxLength(ID_MAX_LENGTH) grader_certificate_number!: string;
  @IsString() @IsNotEmpty() @MaxLength(ID_MAX_LENGTH) grader_report_number!: string;
  @IsIn(GRADING_LAB_VALUES) grading_lab!: GradingLab;
  @IsIsoDateTime() graded_date!: string;
  @IsCaratWeight() carats!: number | string;
  @IsIn(SHAPE_VALUES) shape!: Shape;
}
