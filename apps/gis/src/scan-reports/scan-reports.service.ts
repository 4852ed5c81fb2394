import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Readable } from 'node:stream';
import { BlobStore, isBlobHash } from '@dtp/blob-store';
import { LOGGER } from '@dtp/service-kit';
import { GisConfig } from '../config';
import { BLOB_STORE, GIS_CONFIG } from '../common/tokens';
import { ScanReportEntity } from './scan-report.entity';
import { parseScanReport } from './scan-report.parser';
import { ScanReportRepository } from './scan-report.repository';

/** A scan report as GIS knows it: parsed (once, cached by hash) or not readable from the blob store yet. */
export type ScanReportLookup = { state: 'known'; report: ScanReportEntity } | { state: 'unavailable'; reason: string };

/** Reads at most `limit` bytes of a stream; null when it is longer. */
async function readCapped(stream: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      if (size > limit) return null;
      chunks.push(buf);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

/**
 * Parses each scan report once per hash: the first lookup reads the blob, parses it and stores the outcome
 * (values, or why it is not supported / not parseable) in `scan_reports`; every later lookup reads that row.
 * A blob the store does not hold (yet) is not cached: it is looked up again next time.
 */
@Injectable()
export class ScanReportsService {
  constructor(
    private readonly repo: ScanReportRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async lookup(hash: string): Promise<ScanReportLookup> {
    const cached = await this.repo.find(hash);
    if (cached) return { state: 'known', report: cached };
    if (!isBlobHash(hash)) {
      const report = await this.repo.insertOnce({
        hash,
        outcome: 'not_supported',
        extracted: null,
        detail: { generic_error: 'the scan report reference carries no valid SHA-256 hash' },
        size_bytes: null,
      });
      return { state: 'known', report };
    }
    let blob: Awaited<ReturnType<BlobStore['get']>>;
    let bytes: Buffer | null = null;
    const max = this.config.SCAN_REPORT_MAX_BYTES;
    try {
      blob = await this.blobs.get(hash);
      if (!blob) return { state: 'unavailable', reason: `scan report ${hash} is not in the blob store` };
      if (blob.size > max) blob.stream.destroy();
      else bytes = await readCapped(blob.stream, max);
    } catch (err) {
      // The store is away or failed mid-read: nothing is decided or cached; the next lookup tries again.
      const reason = `scan report ${hash} could not be read: ${err instanceof Error ? err.message : String(err)}`;
      this.logger.warn({ hash, err: reason }, 'blob store read failed');
      return { state: 'unavailable', reason };
    }
    const started = Date.now();
    const outcome =
      bytes === null
        ? ({ outcome: 'not_supported', generic_error: `the scan report is larger than the ${max} bytes accepted` } as const)
        : parseScanReport(bytes, max);
    this.logger.info({ hash, size: blob.size, outcome: outcome.outcome, ms: Date.now() - started }, 'scan report parsed');
    const report = await this.repo.insertOnce({
      hash,
      outcome: outcome.outcome,
      extracted: outcome.outcome === 'parsed' ? outcome.values : null,
      detail: outcome.outcome === 'parsed' ? null : outcome.outcome === 'parse_error' ? outcome.detail : { generic_error: outcome.generic_error },
      size_bytes: String(blob.size),
    });
    return { state: 'known', report };
  }
}
