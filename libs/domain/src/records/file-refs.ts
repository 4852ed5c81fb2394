import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH } from '../rules/limits';
import { dateTimeField, fileHashField, isoTextField } from './api-fields';

/**
 * File references inside DiamondV1Polished. `hash` is the lowercase hex SHA-256 of the bytes (the
 * blob-store key); the spec leaves most members "not shown", so the common ones are ours.
 */
export class FileRef {
  @ApiProperty(
    fileHashField({ description: "Lowercase hex SHA-256 of the bytes: the file's key (search serves it at `/v1/diamonds/{diamond_id}/files/{hash}`)." }),
  )
  hash!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: ID_MAX_LENGTH,
    description: "The uploaded file's name (its last path segment).",
    example: 'report.xml',
  })
  filename!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: DESCRIPTION_MAX_LENGTH,
    description: "The upload's `description` field.",
    example: 'Scan report of the polished stone',
  })
  description!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The media type the file was uploaded with, when it sent a well-formed one.',
    example: 'application/xml',
  })
  content_type!: string | null;

  /** Bytes. */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'Size in bytes.', example: 20480 })
  size!: number | null;

  /** ISO 8601 date-time. */
  @ApiProperty(dateTimeField({ nullable: true, description: 'When the file was attached.' }))
  uploaded_at!: string | null;
}

/** Images carry an `image_type` (free text from the upload form) and the observed gallery members. */
export class ImageRef extends FileRef {
  @ApiProperty({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, description: "The upload's `image_type` field (free text).", example: 'face_up' })
  image_type!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Observed in the spec; not set by this platform.' })
  asset_id?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Observed in the spec; not set by this platform.' })
  gallery?: string | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'Observed in the spec; not set by this platform.' })
  gallery_priority?: number | null;
}

export type ScanRef = FileRef;
export type ScanReportRef = FileRef;

/**
 * GradingCertificateRef: exactly the spec's members (its unknown fields are rejected), `hash` required.
 */
export class GradingCertificateRef {
  @ApiProperty(fileHashField({ description: "Lowercase hex SHA-256 of the certificate file's bytes." }))
  hash!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH, example: 'Grading certificate' })
  description?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'certificate.pdf' })
  filename?: string | null;

  /** ISO 8601. */
  @ApiPropertyOptional(isoTextField({ nullable: true, description: 'ISO 8601.' }))
  graded_date?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  grader_certificate_no?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  grader_inscription_no?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  grader_report_no?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  grading_lab?: string | null;
}
