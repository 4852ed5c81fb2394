import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { GRADING_LAB_VALUES, GradingLab } from '../enums/grading-lab';
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { GradingFieldsDto } from './grading-fields.dto';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight, IsIsoDateTime } from './validators';

/**
 * A graded-measurement record the holder adds itself (`source: user`): every GradingDataView member
 * except id, is_active, is_selectable and source, all optional and nullable.
 */
export class UserGradedMeasurementDto extends GradingFieldsDto {
  @IsOptional() @IsCaratWeight() carats?: number | string | null;
  @IsOptional() @IsIn(SHAPE_VALUES) shape?: Shape | null;
  @IsOptional() @IsIn(GRADING_LAB_VALUES) grading_lab?: GradingLab | null;
  @IsOptional() @IsIsoDateTime() graded_date?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_certificate_number?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_report_number?: string | null;
}
