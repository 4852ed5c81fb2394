/** Diamonds per bulk deletion request (spec "Limits"). */
export const DELETE_LIMIT = 1000;
/** Diamond ids per transfer-out / accept / reject request (our choice, same as deletion). */
export const TRANSFER_LIMIT = 1000;
/** Cuts per split request (our choice). */
export const SPLIT_MIN_CUTS = 2;
export const SPLIT_MAX_CUTS = 100;
/** Inbound shipment list paging (DESIGN.md). */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Registration against a rough shipment: total carats may exceed the shipped total by this per diamond. */
export const SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND = '0.01';
/** Default upload size limit for files (DESIGN.md, configurable): 50 MiB. */
export const DEFAULT_FILE_SIZE_LIMIT_BYTES = 50 * 1024 * 1024;
/** Default validation result lifetime in GIS (DESIGN.md, configurable): 30 days. */
export const DEFAULT_VALIDATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Max length of names (participants, shipments). */
export const NAME_MAX_LENGTH = 200;

/*
 * Input bounds (DESIGN.md "Input bounds"), on every service. The spec documents only the deletion batch (1,000)
 * and the diamond_id length (20 to 98, tighter in DESIGN.md); everything else here is our choice.
 */
/** Deepest nesting of a JSON request body (objects and arrays; the body itself is level 1). */
export const MAX_JSON_DEPTH = 32;
/** Free-form ids and short texts (box ids, participant ids, certificate numbers, colours as text, ...). */
export const ID_MAX_LENGTH = 256;
/** Free-form descriptions and comments (box_description, file descriptions, report comments). */
export const DESCRIPTION_MAX_LENGTH = 1000;
/** Free-form tag objects (supplementary_tags, entity_specific_tags, supplementary_files): serialized size. */
export const TAGS_MAX_BYTES = 16 * 1024;
/** Free-form tag objects: nesting depth inside the member (the member itself is level 1). */
export const TAGS_MAX_DEPTH = 8;
/** Entries of a free-form string array (e.g. grader_inscription_numbers). */
export const STRING_LIST_MAX_ITEMS = 100;
/** Largest carat weight accepted anywhere (the largest rough ever found is about 3,106 ct). */
export const CARATS_MAX = 100000;
/** Decimal places of a carat weight (carats are traded to the hundredth; points of a point are allowed). */
export const CARATS_MAX_DECIMALS = 3;
/** Entries of a 422 `detail` list; the rest are counted in `detail_omitted`. */
export const MAX_VALIDATION_DETAILS = 50;
/** Files attached to one diamond at most (all kinds together; configurable per deployment): keeps the record, and
 * so each `diamond.upserted` event, well under the usual 1 MB broker message limit. */
export const DEFAULT_FILES_PER_DIAMOND = 200;
/** Bytes of files one participant may attach in all (configurable per deployment; deletions do not give back). */
export const DEFAULT_STORAGE_QUOTA_BYTES = 20 * 1024 * 1024 * 1024;
