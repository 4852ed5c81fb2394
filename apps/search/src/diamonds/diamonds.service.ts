import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { BlobStore } from '@dtp/blob-store';
import type { DiamondHistory, DiamondV1 } from '@dtp/domain';
import { ReadModelRepository } from '../read-model/read-model.repository';

export const SEARCH_BLOB_STORE = Symbol('SEARCH_BLOB_STORE');

export interface FileDownload {
  hash: string;
  contentType: string;
  filename: string | null;
  size: number;
  stream: Readable;
}

const notFound = (message: string) => new NotFoundException({ message });

/** Read-only queries of the search read model (eventually consistent with platform). */
@Injectable()
export class DiamondsService {
  constructor(
    @Inject(ReadModelRepository) private readonly repo: ReadModelRepository,
    @Inject(SEARCH_BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async current(diamondId: string): Promise<DiamondV1> {
    const record = await this.repo.find(diamondId);
    if (!record) throw notFound(`diamond ${diamondId} not found`);
    return record;
  }

  async history(diamondId: string): Promise<DiamondHistory> {
    const ancestors = await this.repo.ancestors(diamondId);
    if (!ancestors) throw notFound(`diamond ${diamondId} not found`);
    return { diamond_id: diamondId, ancestors };
  }

  /** The index entry of a file attached to a current diamond (404 otherwise), without its bytes. */
  async fileEntry(diamondId: string, hash: string) {
    const entry = await this.repo.findFile(diamondId, hash);
    if (!entry) throw notFound(`file ${hash} is not attached to diamond ${diamondId}`);
    return entry;
  }

  async file(diamondId: string, hash: string): Promise<FileDownload> {
    const entry = await this.fileEntry(diamondId, hash);
    const blob = await this.blobs.get(hash);
    if (!blob) throw notFound(`file ${hash} of diamond ${diamondId} is not available in the blob store`);
    return {
      hash,
      // The ref's type (file refs have one), else the type the blob was uploaded with (a grading certificate ref has
      // the spec's members only), else the generic one.
      contentType: entry.content_type ?? blob.contentType ?? 'application/octet-stream',
      filename: entry.filename,
      size: blob.size,
      stream: blob.stream,
    };
  }
}
