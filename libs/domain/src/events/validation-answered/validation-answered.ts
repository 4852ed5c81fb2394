import { IsIn, IsOptional, IsString, IsUUID } from 'class-validator';
import { IsDiamondIdFormat, IsIsoDateTime } from '../../dto/validators';

/**
 * `validation.answered` on gis.validations.v1; key = request_id (revision 1: a request is answered once). GIS tells
 * platform it answered a lab's validation request, so platform can tell the diamond's holder
 * (`dtp.validation.answered`, DESIGN.md "Events out to participants' systems").
 */
export interface ValidationAnsweredData {
  request_id: string;
  diamond_id: string;
  verification_status: 'Verified' | 'Unverifiable';
  /** The grading lab that asked. */
  lab_participant_id?: string | null;
  answered_at: string;
}

export class ValidationAnsweredPayload implements ValidationAnsweredData {
  @IsUUID('all') request_id!: string;
  @IsDiamondIdFormat() diamond_id!: string;
  @IsIn(['Verified', 'Unverifiable']) verification_status!: 'Verified' | 'Unverifiable';
  @IsOptional() @IsString() lab_participant_id?: string | null;
  @IsIsoDateTime() answered_at!: string;
}
