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
