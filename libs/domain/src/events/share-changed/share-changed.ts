import { IsISO8601, IsNotEmpty, IsString, ValidateIf } from 'class-validator';
import { IsDiamondIdFormat } from '../../dto/validators';

/**
 * `share.created` / `share.revoked` on platform.shares.v1; key = share_id. A passport share link of a diamond
 * (DESIGN.md "Provenance": passport). Search keeps the live ones to serve `/passport/{share_id}`.
 */
export interface ShareCreatedData {
  share_id: string;
  diamond_id: string;
  /** ISO 8601, or null: no expiry. */
  expires_at: string | null;
  created_at: string;
}
export interface ShareRevokedData {
  share_id: string;
  diamond_id: string;
  revoked_at: string;
}

export class ShareCreatedPayload implements ShareCreatedData {
  @IsString() @IsNotEmpty() share_id!: string;
  @IsDiamondIdFormat() diamond_id!: string;
  @ValidateIf((_o, v) => v !== null) @IsISO8601({ strict: true }) expires_at!: string | null;
  @IsISO8601({ strict: true }) created_at!: string;
}

export class ShareRevokedPayload implements ShareRevokedData {
  @IsString() @IsNotEmpty() share_id!: string;
  @IsDiamondIdFormat() diamond_id!: string;
  @IsISO8601({ strict: true }) revoked_at!: string;
}
