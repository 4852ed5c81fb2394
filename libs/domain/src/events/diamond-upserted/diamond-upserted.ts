import { IsArray, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';
import { IsDiamondIdFormat, IsIsoDateTime, IsPlainObject } from '../../dto/validators';
import {
  ASSURANCE_LEVEL_VALUES,
  AssuranceLevel,
  CURRENT_STAGE_VALUES,
  CurrentStage,
  GIS_STATUS_VALUES,
  GisStatus,
  LIFECYCLE_STATE_VALUES,
  LifecycleState,
  POSSESSION_STATE_VALUES,
  PossessionState,
  UNLOCK_STATUS_VALUES,
  UnlockStatus,
} from '../../enums/diamond-state';
import type { DiamondV1 } from '../../records/diamond-v1';

/** `diamond.upserted` on platform.diamonds.v1: the whole current DiamondV1 record; key = diamond_id. */
export type DiamondUpsertedData = DiamondV1;

/**
 * Checks the essentials of an incoming record; other members are allowed (consumers are tolerant
 * readers and store the record as it is).
 */
export class DiamondUpsertedPayload {
  @IsDiamondIdFormat() diamond_id!: string;
  @IsString() @IsNotEmpty() version_id!: string;
  @IsString() @IsNotEmpty() id!: string;
  @IsIn(LIFECYCLE_STATE_VALUES) lifecycle_state!: LifecycleState;
  @IsIn(CURRENT_STAGE_VALUES) current_stage!: CurrentStage;
  @IsIn(POSSESSION_STATE_VALUES) possession_state!: PossessionState;
  @IsIn(UNLOCK_STATUS_VALUES) unlock_status!: UnlockStatus;
  @IsIn(ASSURANCE_LEVEL_VALUES) assurance_level!: AssuranceLevel;
  @IsString() producer_uuid!: string;
  @IsIsoDateTime() participant_timestamp!: string;
  @IsIsoDateTime() system_timestamp!: string;
  @IsBoolean() is_current!: boolean;
  @IsBoolean() rough_check!: boolean;
  @IsPlainObject() rough!: Record<string, unknown>;
  @IsPlainObject() polished!: Record<string, unknown>;
  @IsPlainObject() provenance!: Record<string, unknown>;
  @IsArray() rough_objective_verification_results!: unknown[];
  @IsArray() polished_objective_verification_results!: unknown[];
  @IsOptional() @IsDiamondIdFormat() diamond_parent_id?: string | null;
  @IsOptional() @IsIn(GIS_STATUS_VALUES) gis_status?: GisStatus | null;
  @IsOptional() @IsString() participant_id?: string | null;
}
