import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { ConflictError, DiamondV1Polished, FileKind, FileRef, GradingCertificateRef, ImageRef } from '@dtp/domain';
import type { PlatformConfig } from '../config';
import { UnitOfWork } from '@dtp/database';
import { PLATFORM_CONFIG } from '../tokens';
import { StorageQuotaRepository } from './storage-quota.repository';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondRow } from '../diamonds/diamond.entity';
import type { ReceivedUpload } from './multipart-upload';

export type AttachedRef = FileRef | ImageRef | GradingCertificateRef;

/** Text fields each kind of upload accepts besides `file`. */
export const UPLOAD_FIELDS: Readonly<Record<FileKind, readonly string[]>> = {
  image: ['description', 'image_type'],
  video: ['description'],
  scan: ['description'],
  scan_report: ['description'],
  grading_certificate: ['description'],
  supplementary: ['description'],
};

/** Puts `ref` into a list, replacing a ref to the same bytes (re-uploading a file updates its ref). */
function withRef<T extends { hash: string }>(list: T[] | null | undefined, ref: T): T[] {
  const rest = (list ?? []).filter((r) => r.hash !== ref.hash);
  return [...rest, ref];
}

/** Attaching uploaded files to a diamond: the ref goes into `polished` as a new version of the record. */
@Injectable()
export class FilesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly changes: DiamondChanges,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly quota: StorageQuotaRepository,
  ) {}

  /**
   * 404 for an unknown diamond, 403 unless the caller holds it, 409 when the caller's storage quota is used up
   * (or the announced body would pass it): all checked before any bytes are read.
   */
  async assertCanUpload(caller: Caller, diamondId: string, announcedBytes: number | null): Promise<void> {
    await this.changes.loadHeld(this.uow.sql, diamondId, caller, { action: 'attach files to it' });
    const used = await this.quota.used(null, caller.participantId);
    // The announced length is the whole multipart body: allow for its boundaries and headers; the exact check
    // on the file's size comes in attach().
    if (used >= this.config.STORAGE_QUOTA_BYTES || used + (announcedBytes ?? 0) - MULTIPART_OVERHEAD_BYTES > this.config.STORAGE_QUOTA_BYTES) {
      throw quotaExceeded(used, this.config.STORAGE_QUOTA_BYTES);
    }
  }

  async attach(caller: Caller, diamondId: string, kind: FileKind, upload: ReceivedUpload): Promise<AttachedRef> {
    const description = upload.fields.description ?? null;
    const base: FileRef = {
      hash: upload.hash,
      filename: upload.filename,
      description,
      content_type: upload.contentType,
      size: upload.size,
      uploaded_at: new Date().toISOString(),
    };
    return this.uow.run(async (sql) => {
      // Holder again, under the row lock: the diamond may have moved on while the bytes streamed in.
      const row = await this.changes.loadHeld(sql, diamondId, caller, { action: 'attach files to it', lock: true });
      const { polished, ref } = applyRef(row, kind, base, upload.fields);
      const max = this.config.FILES_PER_DIAMOND_MAX;
      const count = fileCount(polished);
      if (count > max && count > fileCount(row.polished)) {
        throw new ConflictError(`diamond ${diamondId} already has ${count - 1} files, the most one diamond may have is ${max}`, 'too_many_files', {
          limit: max,
        });
      }
      if (count > fileCount(row.polished) && !(await this.quota.add(sql, caller.participantId, upload.size, this.config.STORAGE_QUOTA_BYTES))) {
        throw quotaExceeded(await this.quota.used(sql, caller.participantId), this.config.STORAGE_QUOTA_BYTES);
      }
      await this.changes.commit(sql, row, { polished }, { action: 'file_attached', actor: caller.participantId });
      return ref;
    });
  }
}

/** What a multipart body may carry besides the file (boundaries, part headers, the text fields). */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

function quotaExceeded(used: number, quota: number): ConflictError {
  return new ConflictError(`your files take ${used} of the ${quota} bytes a participant may store; this file does not fit`, 'storage_quota_exceeded', {
    used_bytes: used,
    limit_bytes: quota,
  });
}

/** How many file refs a `polished` section holds (every kind; the scan counts once). */
export function fileCount(polished: DiamondV1Polished | null | undefined): number {
  if (!polished) return 0;
  const lists = [polished.images, polished.videos, polished.scan_reports, polished.supplementary_files, polished.grading_certificates];
  return lists.reduce((n, list) => n + (list?.length ?? 0), polished.scan ? 1 : 0);
}

/** The new `polished` section with the ref recorded where its kind belongs. */
export function applyRef(row: DiamondRow, kind: FileKind, base: FileRef, fields: Record<string, string>): { polished: DiamondV1Polished; ref: AttachedRef } {
  const polished: DiamondV1Polished = { ...row.polished };
  switch (kind) {
    case 'image': {
      const ref: ImageRef = { ...base, image_type: fields.image_type ?? null };
      polished.images = withRef(polished.images, ref);
      return { polished, ref };
    }
    case 'video':
      polished.videos = withRef(polished.videos, base);
      return { polished, ref: base };
    case 'scan':
      polished.scan = base; // one scan per diamond: a new upload replaces it
      return { polished, ref: base };
    case 'scan_report':
      polished.scan_reports = withRef(polished.scan_reports, base);
      return { polished, ref: base };
    case 'supplementary':
      polished.supplementary_files = withRef(polished.supplementary_files, base);
      return { polished, ref: base };
    case 'grading_certificate': {
      // GradingCertificateRef has exactly the spec's members (its unknown fields are rejected).
      const ref: GradingCertificateRef = { hash: base.hash, filename: base.filename, description: base.description };
      polished.grading_certificates = withRef(polished.grading_certificates, ref);
      return { polished, ref };
    }
  }
}
