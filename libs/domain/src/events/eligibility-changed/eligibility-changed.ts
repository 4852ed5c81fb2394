import { IsIn, IsOptional, ValidateIf } from 'class-validator';
import { IsDiamondIdFormat } from '../../dto/validators';
import { GIS_STATUS_VALUES, GisStatus } from '../../enums/diamond-state';
import { GIS_INELIGIBILITY_REASON_VALUES, GisIneligibilityReason } from '../../enums/grading';

/**
 * `eligibility.changed` on gis.eligibility.v1; key = diamond_id. GIS tells platform the diamond's lab
 * eligibility, which platform shows as the record's `gis_status` (null: not assessed / not polished).
 */
export interface EligibilityChangedData {
  diamond_id: string;
  gis_status: GisStatus | null;
  /** The ineligibility reason behind a non-eligible status, when there is one. */
  reason?: GisIneligibilityReason | null;
}

export class EligibilityChangedPayload implements EligibilityChangedData {
  @IsDiamondIdFormat() diamond_id!: string;
  /** Required, may be null. */
  @ValidateIf((_o: unknown, v: unknown) => v !== null) @IsIn(GIS_STATUS_VALUES) gis_status!: GisStatus | null;
  @IsOptional() @IsIn(GIS_INELIGIBILITY_REASON_VALUES) reason?: GisIneligibilityReason | null;
}
