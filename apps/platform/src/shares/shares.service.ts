import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { UnitOfWork } from '@dtp/database';
import { EventTypes, makeEnvelope, NotFoundError, ShareLink, topicOf } from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import type { PlatformConfig } from '../config';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { PLATFORM_CONFIG } from '../tokens';
import { SharesRepository } from './shares.repository';

/** 16 random bytes, base64url: 22 characters, 128 bits (isShareId). */
export function newShareId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Passport share links (DESIGN.md "Provenance": passport). The holder creates them; whoever holds the diamond
 * when a link is revoked may revoke it (a link survives transfers). Each change writes its event
 * (`share.created` revision 1, `share.revoked` revision 2, on platform.shares.v1) in the same transaction;
 * search serves the page from them.
 */
@Injectable()
export class SharesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly changes: DiamondChanges,
    private readonly shares: SharesRepository,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async create(caller: Caller, diamondId: string, expiresAt: string | undefined): Promise<ShareLink> {
    return this.uow.run(async (sql) => {
      await this.changes.loadHeld(sql, diamondId, caller, { action: 'share it', readOnly: true });
      const now = new Date();
      const shareId = newShareId();
      const expires = expiresAt === undefined ? null : new Date(expiresAt);
      await this.shares.insert(sql, { share_id: shareId, diamond_id: diamondId, created_by: caller.participantId, created_at: now, expires_at: expires });
      const data = { share_id: shareId, diamond_id: diamondId, expires_at: expires?.toISOString() ?? null, created_at: now.toISOString() };
      const envelope = makeEnvelope({ event_type: EventTypes.SHARE_CREATED, data, revision: 1, occurred_at: now });
      await writeOutbox(sql, [{ topic: topicOf(EventTypes.SHARE_CREATED), key: shareId, eventType: EventTypes.SHARE_CREATED, revision: 1, payload: envelope }]);
      return { share_id: shareId, url: this.urlOf(shareId), expires_at: data.expires_at };
    });
  }

  /** Revokes a link of a diamond the caller holds now; revoking it again changes nothing. 404 when it is not a link of that diamond. */
  async revoke(caller: Caller, diamondId: string, shareId: string): Promise<void> {
    await this.uow.run(async (sql) => {
      await this.changes.loadHeld(sql, diamondId, caller, { action: 'revoke its share links', readOnly: true });
      const share = await this.shares.findForUpdate(sql, diamondId, shareId);
      if (!share) throw new NotFoundError('share not found');
      if (share.revoked_at !== null) return;
      const now = new Date();
      await this.shares.revoke(sql, shareId, caller.participantId, now);
      const envelope = makeEnvelope({
        event_type: EventTypes.SHARE_REVOKED,
        data: { share_id: shareId, diamond_id: diamondId, revoked_at: now.toISOString() },
        revision: 2,
        occurred_at: now,
      });
      await writeOutbox(sql, [{ topic: topicOf(EventTypes.SHARE_REVOKED), key: shareId, eventType: EventTypes.SHARE_REVOKED, revision: 2, payload: envelope }]);
    });
  }

  private urlOf(shareId: string): string {
    return `${this.config.SEARCH_PUBLIC_URL.replace(/\/+$/, '')}/passport/${shareId}`;
  }
}
