import { IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { IsIsoDateTime } from '../../dto/validators';

/**
 * `client.revoked` on auth.participants.v1; key = client_id (not the participant: the topic is compacted, and a
 * participant-keyed revocation would replace the participant's `participant.onboarded`; keyed by client, the
 * latest record of every revoked client stays on the topic for good). Written by auth in the same transaction as
 * the revocation, once per client (revision 1). Every service that checks tokens refuses, from then on, the
 * client's tokens issued before `revoked_at` (docs/auth.md "Revocation").
 */
export interface ClientRevokedData {
  client_id: string;
  participant_id: string;
  /** ISO 8601 date-time (UTC) of the revocation, as auth's database recorded it. */
  revoked_at: string;
}

export class ClientRevokedPayload implements ClientRevokedData {
  /** A client id is an RFC 6749 VSCHAR string: printable ASCII, 1 to 256 characters. */
  @IsString() @MinLength(1) @MaxLength(256) @Matches(/^[\x20-\x7e]+$/, { message: 'client_id must be printable ASCII' }) client_id!: string;
  @IsUUID('all') participant_id!: string;
  @IsIsoDateTime() revoked_at!: string;
}
