import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { GRADING_LAB_VALUES, GradingLab } from '../enums/grading-lab';
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { GradingFieldsDto } from './grading-fields.dto';
import { ApiEnums, caratsInput, closedSchema, isoTextField } from '../records/api-fields';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight, IsCalendarDateTime } from './validators';

/**
 * A graded-measurement record the holder adds itself (`source: user`): every GradingDataView member
 * except id, is_active, is_selectable and source, all optional and nullable.
 */
@ApiSchema(
  closedSchema('UserGradedMeasurement', 'A graded measurement of your own (`source: user`): every member optional and nullable. Unknown fields are rejected.'),
)
export class UserGradedMeasurementDto extends GradingFieldsDto {
  @ApiPropertyOptional(caratsInput({ nullable: true, example: '1.01' }))
  @IsOptional()
  @IsCaratWeight()
  carats?: number | string | null;
  @ApiPropertyOptional({ ...ApiEnums.Shape, nullable: true, example: 'Round' })
  @IsOptional()
  @IsIn(SHAPE_VALUES)
  shape?: Shape | null;
  @ApiPropertyOptional({ ...ApiEnums.GradingLab, nullable: true, example: 'GIA' })
  @IsOptional()
  @IsIn(GRADING_LAB_VALUES)
  grading_lab?: GradingLab | null;
  @ApiPropertyOptional(isoTextField({ nullable: true, example: '2024-06-01T00:00:00Z' }))
  @IsOptional()
  @IsCalendarDateTime()
  graded_date?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: '2141438172' })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grader_certificate_number?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'R-2141438172' })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grader_report_number?: string | null;
}
