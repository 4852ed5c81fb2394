import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { BlobStore } from '@dtp/blob-store';
import type { ConsistencyAnswer, CustodyAnswer, DiamondV1 } from '@dtp/domain';
import { SEARCH_BLOB_STORE } from '../diamonds/diamonds.service';
import { isShareId } from '@dtp/domain';
import { ReadModelRepository } from '../read-model/read-model.repository';
import { PASSPORT_CUSTODY, PassportCustodySource } from './passport.custody';
import { PassportRepository } from './passport.repository';
import { participantIdsOf, passportView, PassportView } from './passport.view';

const notFound = () => new NotFoundException({ message: 'passport not found' });

/** Raster image types a browser shows safely in an <img> (no SVG: it can carry script). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'] as const;

interface ImageRefLike {
  hash?: unknown;
  content_type?: unknown;
  image_type?: unknown;
}

/** The record's images a passport may show: raster types only, in the record's order. */
export function publicPhotos(record: DiamondV1): { hash: string; contentType: string; label: string | null }[] {
  const images = ((record.polished as { images?: unknown } | undefined)?.images ?? []) as ImageRefLike[];
  if (!Array.isArray(images)) return [];
  return images
    .filter(
      (i) => typeof i?.hash === 'string' && typeof i.content_type === 'string' && (PHOTO_TYPES as readonly string[]).includes(i.content_type.toLowerCase()),
    )
    .map((i) => ({
      hash: i.hash as string,
      contentType: (i.content_type as string).toLowerCase(),
      label: typeof i.image_type === 'string' && i.image_type.trim() !== '' ? i.image_type.trim() : null,
    }));
}

export interface PhotoDownload {
  contentType: string;
  size: number;
  stream: Readable;
}

/**
 * The public passport of a shared diamond (DESIGN.md "Provenance": passport). A link that is unknown, revoked or
 * expired, or whose diamond is gone, is "not found", always with the same answer.
 */
@Injectable()
export class PassportService {
  constructor(
    @Inject(PassportRepository) private readonly passports: PassportRepository,
    @Inject(ReadModelRepository) private readonly diamonds: ReadModelRepository,
    @Inject(PASSPORT_CUSTODY) private readonly custody: PassportCustodySource,
    @Inject(SEARCH_BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** The diamond of a live link (404 otherwise). */
  async diamondOf(shareId: string): Promise<string> {
    if (!isShareId(shareId)) throw notFound();
    const diamondId = await this.passports.liveShare(shareId);
    if (!diamondId) throw notFound();
    return diamondId;
  }

  async record(shareId: string): Promise<DiamondV1> {
    const record = await this.diamonds.find(await this.diamondOf(shareId));
    if (!record) throw notFound();
    return record;
  }

  async custodyAnswer(shareId: string): Promise<CustodyAnswer> {
    const answer = await this.custody.answerFor(await this.diamondOf(shareId));
    if (!answer) throw new NotFoundException({ message: 'the custody log has no checkpoint covering this diamond yet' });
    return answer;
  }

  /** A consistency proof of the log, for a browser that verified this link before (rollback detection). */
  async consistency(shareId: string, from: number, to: number): Promise<ConsistencyAnswer> {
    await this.diamondOf(shareId);
    return this.custody.consistency(from, to);
  }

  async view(shareId: string, shareUrl: string): Promise<PassportView> {
    const record = await this.record(shareId);
    const ancestors = (await this.diamonds.ancestors(record.diamond_id)) ?? [];
    const custody = await this.custody.answerFor(record.diamond_id);
    const chain = [...ancestors].reverse().concat(record);
    // The diamonds the chain reaches through a registration's links (the shipped rough, and their own ancestors).
    const known = new Set(chain.map((r) => r.diamond_id));
    const linkedIds = [...new Set((custody?.entries ?? []).map((e) => e.entry.diamond_id).filter((id) => !known.has(id)))];
    const linked = [...(await this.diamonds.findMany(linkedIds)).values()];
    const participants = await this.passports.participants(participantIdsOf(chain.concat(linked), custody));
    const images = ((record.polished as { images?: unknown[] } | undefined)?.images ?? []).length;
    // The link's holder shares the diamond's photos with it: raster images only, addressed by position (no hash in
    // the page); other image files are counted for the placeholder.
    const shown = publicPhotos(record);
    const photos = shown.map((p, i) => ({
      src: `${encodeURIComponent(shareId)}/photos/${i + 1}`,
      alt: `Photo ${i + 1} of the diamond${p.label ? ` (${p.label.replace(/_/g, ' ')})` : ''}`,
    }));
    return passportView({ record, ancestors, custody, linked, participants, photos, hiddenPhotos: images - shown.length, shareUrl });
  }

  /** The `n`th (1-based) public photo of a shared diamond; 404 when there is none. */
  async photo(shareId: string, n: number): Promise<PhotoDownload> {
    const record = await this.record(shareId);
    const photo = Number.isInteger(n) && n >= 1 ? publicPhotos(record)[n - 1] : undefined;
    if (!photo) throw new NotFoundException({ message: 'photo not found' });
    const blob = await this.blobs.get(photo.hash);
    if (!blob) throw new NotFoundException({ message: 'photo not found' });
    return { contentType: photo.contentType, size: blob.size, stream: blob.stream };
  }
}
