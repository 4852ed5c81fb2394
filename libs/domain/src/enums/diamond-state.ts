import { enumObject } from './enum-helpers';

/** State-carrying fields of a diamond record (spec "States and transitions", DESIGN.md "Platform"). */

export const LIFECYCLE_STATE_VALUES = ['rough', 'split', 'polished', 'destroyed'] as const;
export const LifecycleState = enumObject(LIFECYCLE_STATE_VALUES);
export type LifecycleState = (typeof LIFECYCLE_STATE_VALUES)[number];

export const CURRENT_STAGE_VALUES = ['rough', 'polished'] as const;
export const CurrentStage = enumObject(CURRENT_STAGE_VALUES);
export type CurrentStage = (typeof CURRENT_STAGE_VALUES)[number];

/** The spec's PossessionState; DESIGN.md fixes the full set. */
export const POSSESSION_STATE_VALUES = ['held', 'in_transit'] as const;
export const PossessionState = enumObject(POSSESSION_STATE_VALUES);
export type PossessionState = (typeof POSSESSION_STATE_VALUES)[number];

/** The spec's DiamondUnlockStatus; DESIGN.md fixes the full set. */
export const UNLOCK_STATUS_VALUES = ['locked', 'unlocked'] as const;
export const UnlockStatus = enumObject(UNLOCK_STATUS_VALUES);
export type UnlockStatus = (typeof UNLOCK_STATUS_VALUES)[number];

export const ASSURANCE_LEVEL_VALUES = ['assured', 'declared'] as const;
export const AssuranceLevel = enumObject(ASSURANCE_LEVEL_VALUES);
export type AssuranceLevel = (typeof ASSURANCE_LEVEL_VALUES)[number];

/** `gis_status` of a diamond record (lab eligibility); the record field itself may also be null. */
export const GIS_STATUS_VALUES = ['eligible', 'missing_report', 'invalid_report', 'not_processable', 'missing_data', 'shape_not_supported'] as const;
export const GisStatus = enumObject(GIS_STATUS_VALUES);
export type GisStatus = (typeof GIS_STATUS_VALUES)[number];

export const DATA_REQUEST_STATUS_VALUES = ['pending', 'success', 'error'] as const;
export const DataRequestStatus = enumObject(DATA_REQUEST_STATUS_VALUES);
export type DataRequestStatus = (typeof DATA_REQUEST_STATUS_VALUES)[number];

export const DATA_REQUEST_TYPE_VALUES = ['three_d_plan'] as const;
export const DataRequestType = enumObject(DATA_REQUEST_TYPE_VALUES);
export type DataRequestType = (typeof DATA_REQUEST_TYPE_VALUES)[number];

/** Deprecated record field `verification_status` (default `Verified`) and GIS validation status. */
export const VERIFICATION_STATUS_VALUES = ['Pending', 'Verified', 'Unverifiable'] as const;
export const VerificationStatus = enumObject(VERIFICATION_STATUS_VALUES);
export type VerificationStatus = (typeof VERIFICATION_STATUS_VALUES)[number];
