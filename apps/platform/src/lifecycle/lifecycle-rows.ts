import type { Caller } from '@dtp/auth-guard';
import type { DiamondV1Polished, DiamondV1Rough } from '@dtp/domain';
import type { DiamondRow } from '../diamonds/diamond.entity';
import { newDiamondRow } from '../diamonds/new-diamond-row';

/** Uniqueness namespace of the children of one diamond: their participant_id is unique among siblings. */
export function childScope(parentId: string): string {
  return `parent:${parentId}`;
}

export { polishedFromSchema, roughFromSchema } from '../diamonds/new-diamond-row';

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
  return newDiamondRow(
    {
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
      assurance_level: parent.assurance_level,
      provenance_pending: false,
      box_description: parent.box_description,
      sight_no: parent.sight_no,
      sight_year: parent.sight_year,
      participant_timestamp: input.participantTimestamp,
      rough: input.rough,
      polished: input.polished,
      provenance: parent.provenance,
      entity_specific_tags: input.entitySpecificTags ?? null,
      supplementary_tags: input.supplementaryTags ?? null,
    },
    now,
  );
}
