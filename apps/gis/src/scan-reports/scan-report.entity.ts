import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ScanReportParseErrorDetail } from '@dtp/domain';
import type { ScanReportValues } from './scan-report.parser';

/** One parsed scan report, keyed by its blob hash: parsed once, whatever the outcome. */
@Entity({ name: 'scan_reports' })
export class ScanReportEntity {
  @PrimaryColumn('text')
  hash!: string;

  @Column('text')
  outcome!: 'parsed' | 'not_supported' | 'missing_data' | 'parse_error';

  /** The extracted values when parsed. */
  @Column('jsonb', { nullable: true })
  extracted!: ScanReportValues | null;

  /** `{generic_error}` or the parse-error detail. */
  @Column('jsonb', { nullable: true })
  detail!: { generic_error: string } | ScanReportParseErrorDetail | null;

  @Column('bigint', { nullable: true })
  size_bytes!: string | null;

  @Column('timestamptz')
  parsed_at!: Date;
}
