import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { GRADING_ID_PATTERN } from '../../rules/ids';
import { GradingSubmissionDto } from '../../dto/gis.dto';
import { IsDiamondIdFormat, IsIsoDateTime } from '../../dto/validators';
import type { GradingSubmission } from '../../records/grading-data-view';

/**
 * `grading.submitted` on gis.gradings.v1; key = diamond_id (revision counts the gradings GIS has
 * published for that diamond). Platform turns it into a selectable `source: gis` graded measurement
 * whose id is `grading_id` (so a redelivery is recognised).
 */
export interface GradingSubmittedData {
  diamond_id: string;
  grading_id: string;
  /** Participant id of the holder GIS knew of when the lab submitted, if any. */
  holder?: string | null;
  /** Participant id of the grading lab that submitted. */
  submitted_by?: string | null;
  submitted_at?: string | null;
  /** Decimal members as decimal text. */
  data: GradingSubmission;
}

export class GradingSubmittedPayload {
  @IsDiamondIdFormat() diamond_id!: string;
  @IsString() @Matches(GRADING_ID_PATTERN, { message: 'grading_id must be 1 to 128 letters, digits, ".", "_", ":" or "-"' }) grading_id!: string;
  @IsOptional() @IsString() holder?: string | null;
  @IsOptional() @IsString() submitted_by?: string | null;
  @IsOptional() @IsIsoDateTime() submitted_at?: string | null;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => GradingSubmissionDto)
  data!: GradingSubmissionDto;
}
