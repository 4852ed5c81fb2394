import { randomUUID } from 'node:crypto';
import type { Caller } from '@dtp/auth-guard';
import {
  DiamondV1Polished,
  DiamondV1Rough,
  newDiamondId,
  newVersionId,
  PolishedSchemaDto,
  RoughSchemaDto,
  toDecimalText,
} from '@dtp/domain';
import type { DiamondRow } from '../diamonds/diamond.row';

/** Uniqueness namespace of the children of one diamond: their participant_id is unique among siblings. */
export function childScope(parentId: string): string {
  return `parent:${parentId}`;
}

/** Supplied members of a request section; `carats` as decimal text; members not supplied omitted. */
function section<T>(input: object): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    out[key] = key === 'carats' && value !== null ? toDecimalText(value as number | string) : value;
  }
  return out as T;
}

export const roughFromSchema = (rough: RoughSchemaDto): DiamondV1Rough => section<DiamondV1Rough>(rough);
export const polishedFromSchema = (polished: PolishedSchemaDto): DiamondV1Polished => section<DiamondV1Polished>(polished);

export interface ChildInput {
  participantId: string;
  participantTimestamp: string;
  stage: 'rough' | 'polished';
  rough: DiamondV1Rough;
  polished: DiamondV1Polished;
  entitySpecificTags?: Record<string, unknown> | null;
  supplementaryTags?: Record<string, unknown> | null;
}

/**
 * A diamond made from `parent` by the caller (a polished child or a rough cut): linked to the parent
 * (`diamond_parent_id`, `participant_parent_id`, legacy `parent_id`), inheriting producer, provenance, assurance
 * level, box and sight; uploaded and held by the caller, `held`, `locked`, revision 1.
 */
export function newChildRow(parent: DiamondRow, caller: Caller, input: ChildInput, now: Date): DiamondRow {
  return {
    diamond_id: newDiamondId(),
    legacy_id: randomUUID(),
    version_id: newVersionId(),
    revision: 1,
    uploader_id: caller.participantId,
    holder_id: caller.participantId,
    producer_uuid: parent.producer_uuid,
    box_scope: childScope(parent.diamond_id),
    box_id: parent.box_id,
    participant_id: input.participantId,
    diamond_parent_id: parent.diamond_id,
    participant_parent_id: parent.participant_id,
    legacy_parent_id: parent.legacy_id,
    lifecycle_state: input.stage,
    current_stage: input.stage,
    possession_state: 'held',
    unlock_status: 'locked',
    assurance_level: parent.assurance_level,
    rough_check: false,
    provenance_pending: false,
    box_description: parent.box_description,
    sight_no: parent.sight_no,
    sight_year: parent.sight_year,
    participant_timestamp: input.participantTimestamp,
    system_timestamp: now,
    created_at: now,
    archived_at: null,
    gis_status: null,
    three_d_plan_available: false,
    verification_status: 'Verified',
    verification_description: 'verified record',
    verification_status_modified_at: null,
    rough: input.rough,
    polished: input.polished,
    provenance: parent.provenance,
    entity_specific_tags: input.entitySpecificTags ?? null,
    supplementary_tags: input.supplementaryTags ?? null,
    data_requests: [],
    rough_objective_verification_results: [],
    polished_objective_verification_results: [],
  };
}
