/**
 * What a custody entry records (DESIGN.md "Provenance"). Every new `version_id` of a diamond has exactly one
 * entry; `record_updated` is a change no participant's call made (provenance confirmed by auth, `gis_status`
 * from GIS, ...). A child's first entry (polishing, splitting) is `registered`, and links to its parent's
 * entry made in the same transaction.
 */
export const CUSTODY_ACTION_VALUES = [
  'registered',
  'file_attached',
  'unlocked',
  'shipped',
  'accepted',
  'rejected',
  'polished',
  'split',
  'destroyed',
  'grading_selected',
  'grading_deselected',
  'deleted',
  'record_updated',
] as const;
export type CustodyAction = (typeof CUSTODY_ACTION_VALUES)[number];

/** Lower-case hex SHA-256 (64 characters): entry hashes, record hashes, tree hashes, proof steps. */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;

/** At most this many entries travel in one `custody.checkpoint` event (the checkpointer cuts bigger batches). */
export const CUSTODY_EVENT_MAX_ENTRIES = 256;
