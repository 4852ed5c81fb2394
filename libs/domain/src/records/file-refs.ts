/**
 * File references inside DiamondV1Polished. `hash` is the lowercase hex SHA-256 of the bytes (the
 * blob-store key); the spec leaves most members "not shown", so the common ones are ours.
 */
export interface FileRef {
  hash: string;
  filename: string | null;
  description: string | null;
  content_type: string | null;
  /** Bytes. */
  size: number | null;
  /** ISO 8601 date-time. */
  uploaded_at: string | null;
}

/** Images carry an `image_type` (free text from the upload form) and the observed gallery members. */
export interface ImageRef extends FileRef {
  image_type: string | null;
  asset_id?: string | null;
  gallery?: string | null;
  gallery_priority?: number | null;
}

export type ScanRef = FileRef;
export type ScanReportRef = FileRef;

/**
 * GradingCertificateRef: exactly the spec's members (its unknown fields are rejected), `hash` required.
 */
export interface GradingCertificateRef {
  hash: string;
  description?: string | null;
  filename?: string | null;
  /** ISO 8601. */
  graded_date?: string | null;
  grader_certificate_no?: string | null;
  grader_inscription_no?: string | null;
  grader_report_no?: string | null;
  grading_lab?: string | null;
}
