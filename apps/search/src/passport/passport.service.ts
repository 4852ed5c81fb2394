import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { CustodyAnswer, DiamondV1 } from '@dtp/domain';
import { isShareId } from '@dtp/domain';
import { ReadModelRepository } from '../read-model/read-model.repository';
import { PASSPORT_CUSTODY, PassportCustodySource } from './passport.custody';
import { PassportRepository } from './passport.repository';
import { participantIdsOf, passportView, PassportView } from './passport.view';

const notFound = () => new NotFoundException({ message: 'passport not found' });

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

  async view(shareId: string, shareUrl: string): Promise<PassportView> {
    const record = await this.record(shareId);
    const ancestors = (await this.diamonds.ancestors(record.diamond_id)) ?? [];
    const custody = await this.custody.answerFor(record.diamond_id);
    const chain = [...ancestors].reverse().concat(record);
    const participants = await this.passports.participants(participantIdsOf(chain, custody));
    const images = ((record.polished as { images?: unknown[] } | undefined)?.images ?? []).length;
    // Search serves a diamond's files to token holders only (GET /v1/diamonds/{id}/files/{hash}): the page shows none.
    return passportView({ record, ancestors, custody, participants, photos: [], hiddenPhotos: images, shareUrl });
  }
}
