/** Nest injection tokens of the gis service. */
export const GIS_CONFIG = Symbol('GIS_CONFIG');
/** The blob store GIS reads scan reports from (@dtp/blob-store BlobStore). */
export const BLOB_STORE = Symbol('BLOB_STORE');
