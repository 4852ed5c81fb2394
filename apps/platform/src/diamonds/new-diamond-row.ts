import { DiamondV1Polished, DiamondV1Rough, newDiamondId, newLegacyId, newVersionId, PolishedSchemaDto, RoughSchemaDto, toDecimalText } from '@dtp/domain';
import type { DiamondRow } from './diamond.entity';

/** What differs between new diamonds (registration, a polished child, a rough cut). */
export type NewDiamondFields = Pick<
  DiamondRow,
  | 'uploader_id'
  | 'holder_id'
  | 'producer_uuid'
  | 'box_scope'
  | 'box_id'
  | 'participant_id'
  | 'diamond_parent_id'
  | 'participant_parent_id'
  | 'legacy_parent_id'
  | 'lifecycle_state'
  | 'current_stage'
  | 'assurance_level'
  | 'provenance_pending'
  | 'box_description'
  | 'sight_no'
  | 'sight_year'
  | 'participant_timestamp'
  | 'rough'
  | 'polished'
  | 'provenance'
  | 'entity_specific_tags'
  | 'supplementary_tags'
>;

/**
 * Every new diamond, however it came to be: new ids, revision 1, `held`, `locked` (only a transfer or the unlock
 * call unlocks), rough_check false, the deprecated verification defaults, no data requests or objective results.
 */
export function newDiamondRow(fields: NewDiamondFields, now: Date): DiamondRow {
  return {
    diamond_id: newDiamondId(),
    legacy_id: newLegacyId(),
    version_id: newVersionId(),
    revision: 1,
    ...fields,
    possession_state: 'held',
    unlock_status: 'locked',
    rough_check: false,
    system_timestamp: now,
    created_at: now,
    archived_at: null,
    gis_status: null,
    three_d_plan_available: false,
    verification_status: 'Verified',
    verification_description: 'verified record',
    verification_status_modified_at: null,
    data_requests: [],
    rough_objective_verification_results: [],
    polished_objective_verification_results: [],
    // Set to the diamond's first custody entry when it is inserted (DiamondsRepository.insertWithOutbox).
    custody_head: null,
  };
}

/** Supplied members of a request section, in the order supplied; `carats` as decimal text; absent ones omitted. */
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
