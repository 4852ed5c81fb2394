import { ApiProperty, ApiPropertyOptional, ApiSchema, ApiSchemaOptions } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsPositive, IsString, Max, MaxLength, Min } from 'class-validator';
import { GRADING_LAB_VALUES, GradingLab } from '../enums/grading-lab';
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { SHAPE_GROUP_INPUT_VALUES } from '../rules/shape-groups';
import { GradingFieldsDto } from './grading-fields.dto';
import { isoTextField } from '../records/api-fields';
import { CARATS_MAX, CARATS_MAX_DECIMALS, ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight, IsCalendarDateTime } from './validators';

const FINITE = { allowNaN: false, allowInfinity: false } as const;
/** A request body's schema: named, and closed (the validation pipe refuses unknown members with 422). */
const requestSchema = (name: string, description: string) => ({ name, description, additionalProperties: false }) as ApiSchemaOptions;
/** `> 0` in OpenAPI 3.1 (JSON Schema: the bound itself); @nestjs/swagger's types still have 3.0's boolean. */
const GREATER_THAN_0 = { exclusiveMinimum: 0 as unknown as boolean } as const;

/** What `shape_group` accepts: a Shape value (standing for its group) or a shape-group name. */
const SHAPE_GROUP_INPUT = {
  enum: SHAPE_GROUP_INPUT_VALUES,
  enumName: 'ShapeGroupInput',
  description: 'A Shape value (standing for its shape group) or a shape-group name (Round, Oval, ..., Other).',
  example: 'Round',
} as const;

/** Body of `POST {gis_url}/v2/diamonds/{diamond_id}/verify`. */
@ApiSchema(requestSchema('VerifyRequest', 'What the lab measured, compared with the registered polished diamond. Unknown members are refused.'))
export class VerifyRequestDto {
  @ApiProperty({ type: 'number', ...GREATER_THAN_0, maximum: CARATS_MAX, description: 'The carat weight the lab measured.', example: 1.02 })
  @IsNumber(FINITE)
  @IsPositive()
  @Max(CARATS_MAX)
  carat_weight!: number;

  /** A Shape value (mapped to its group) or a shape-group name. */
  @ApiProperty(SHAPE_GROUP_INPUT)
  @IsString()
  @IsIn(SHAPE_GROUP_INPUT_VALUES, { message: 'shape_group must be a shape or a shape group name' })
  shape_group!: string;
}

/** A measurement of validate-json: a finite number, at least 0. */
const MEASUREMENT = (description: string, example: number, maximum?: number) =>
  ({ type: 'number', minimum: 0, ...(maximum === undefined ? {} : { maximum }), description, example }) as const;

/** Body of `POST {gis_url}/v2/diamonds/{diamond_id}/validate-json`. */
@ApiSchema(requestSchema('ValidateJsonRequest', "The lab's measurements, compared with the diamond's scan report. Unknown members are refused."))
export class ValidateJsonRequestDto {
  /** Any other text is refused with 422 (`type: "enum"`) by the service. */
  @ApiProperty({ ...SHAPE_GROUP_INPUT, minLength: 1, maxLength: ID_MAX_LENGTH })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  shape_group!: string;

  @ApiProperty(MEASUREMENT('Estimated weight, carats (tolerance 0.02).', 1.02, CARATS_MAX))
  @IsNumber(FINITE)
  @Min(0)
  @Max(CARATS_MAX)
  estimated_weight_crt!: number;

  @ApiProperty(MEASUREMENT('Girdle average, mm (tolerance 0.5).', 7.55))
  @IsNumber(FINITE)
  @Min(0)
  girdle_avg_mm!: number;

  @ApiProperty(MEASUREMENT('Table size average, mm (tolerance 0.143).', 3.71))
  @IsNumber(FINITE)
  @Min(0)
  table_avg_mm!: number;

  @ApiProperty(MEASUREMENT('Total depth, mm (tolerance 0.073).', 4.2))
  @IsNumber(FINITE)
  @Min(0)
  total_depth_mm!: number;

  /** Compared when available; reported as `crown_angle_avg_deg`. */
  @ApiPropertyOptional({
    ...MEASUREMENT('Crown angle average, degrees (tolerance 1.1); compared when sent, reported as `crown_angle_avg_deg`.', 34.5),
    nullable: true,
  })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  crown_angle_deg?: number | null;

  /** Compared when available; reported as `pavilion_angle_avg_deg`. */
  @ApiPropertyOptional({
    ...MEASUREMENT('Pavilion angle average, degrees (tolerance 0.27); compared when sent, reported as `pavilion_angle_avg_deg`.', 40.8),
    nullable: true,
  })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  pavillion_angle_deg?: number | null;
}

/**
 * Body of `POST {gis_url}/v2/diamonds/{diamond_id}/grading` (grading lab): a flat GradingDataView
 * (DESIGN.md "GIS"). Unknown fields are rejected.
 */
@ApiSchema(
  requestSchema(
    'GradingSubmission',
    "The lab's grading: GradingDataView members, six of them required (decimals as numbers or decimal text). Unknown members are refused.",
  ),
)
export class GradingSubmissionDto extends GradingFieldsDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, example: '2141438167' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  grader_certificate_number!: string;

  @ApiProperty({ type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, example: '2141438167' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  grader_report_number!: string;

  @ApiProperty({ enum: GRADING_LAB_VALUES, enumName: 'GradingLab', example: 'GIA' })
  @IsIn(GRADING_LAB_VALUES)
  grading_lab!: GradingLab;

  @ApiProperty(isoTextField({ description: 'ISO 8601 date-time (RFC 3339 recommended); kept as sent.', example: '2025-03-04T10:00:00Z' }))
  @IsCalendarDateTime()
  graded_date!: string;

  @ApiProperty({
    description: `A number or decimal text, greater than 0, at most ${CARATS_MAX}, with at most ${CARATS_MAX_DECIMALS} decimal places.`,
    oneOf: [
      { type: 'number', ...GREATER_THAN_0, maximum: CARATS_MAX },
      { type: 'string', pattern: `^\\d+(\\.\\d{1,${CARATS_MAX_DECIMALS}})?$` },
    ],
    example: 1.02,
  })
  @IsCaratWeight()
  carats!: number | string;

  @ApiProperty({ enum: SHAPE_VALUES, enumName: 'Shape', example: 'Round' })
  @IsIn(SHAPE_VALUES)
  shape!: Shape;
}
