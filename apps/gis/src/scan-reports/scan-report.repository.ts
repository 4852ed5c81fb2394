import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ScanReportEntity } from './scan-report.entity';

/** scan_reports: one row per report hash, written once (first writer wins). */
@Injectable()
export class ScanReportRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async find(hash: string): Promise<ScanReportEntity | null> {
    return this.ds.getRepository(ScanReportEntity).findOne({ where: { hash } });
  }

  /** Stores a parse result unless one is already stored; returns the stored row either way. */
  async insertOnce(row: Pick<ScanReportEntity, 'hash' | 'outcome' | 'extracted' | 'detail' | 'sizeBytes'>): Promise<ScanReportEntity> {
    await this.ds.query(
      `INSERT INTO scan_reports (hash, outcome, extracted, detail, size_bytes) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)
       ON CONFLICT (hash) DO NOTHING`,
      [row.hash, row.outcome, row.extracted === null ? null : JSON.stringify(row.extracted), row.detail === null ? null : JSON.stringify(row.detail), row.sizeBytes],
    );
    const stored = await this.find(row.hash);
    if (!stored) throw new Error(`scan report ${row.hash} vanished after insert`);
    return stored;
  }
}
