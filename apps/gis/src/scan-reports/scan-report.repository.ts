import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ScanReportEntity } from './scan-report.entity';

/** scan_reports: one row per report hash, written once (first writer wins). The only code that queries the table. */
@Injectable()
export class ScanReportRepository {
  constructor(@InjectRepository(ScanReportEntity) private readonly repo: Repository<ScanReportEntity>) {}

  async find(hash: string): Promise<ScanReportEntity | null> {
    return this.repo.findOneBy({ hash });
  }

  /** Stores a parse result unless one is already stored; returns the stored row either way. */
  async insertOnce(row: Pick<ScanReportEntity, 'hash' | 'outcome' | 'extracted' | 'detail' | 'size_bytes'>): Promise<ScanReportEntity> {
    await this.repo.createQueryBuilder().insert().values(row).orIgnore().execute();
    const stored = await this.find(row.hash);
    if (!stored) throw new Error(`scan report ${row.hash} vanished after insert`);
    return stored;
  }
}
