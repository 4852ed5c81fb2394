import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { BlobStore } from '@dtp/blob-store';
import type { DiamondHistory } from '@dtp/domain';
import { UnitOfWork } from '@dtp/database';
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
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  // raw SQL: the read hot path (bench search), on the pool without TypeORM's query runner, the record as its text.
  /**
   * The current record of a diamond as the JSON text the read model stores (a `json` column, written as
   * JSON.stringify of the record: exactly the bytes a re-serialisation of the parsed record would give), so a read
   * neither parses nor serialises it. The statement is prepared once per pool connection (`search_current_json`):
   * PostgreSQL parses and plans it on a connection's first read only (docs/search.md, "Performance").
   */
  async currentJson(diamondId: string): Promise<string> {
    const rows = await this.uow.standalone.rows<{ record: string }>(
      'SELECT record::text AS record FROM search_diamonds WHERE diamond_id = $1 AND record IS NOT NULL',
      [diamondId],
      'search_current_json',
    );
    if (rows.length === 0) throw notFound(`diamond ${diamondId} not found`);
    return rows[0].record;
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
