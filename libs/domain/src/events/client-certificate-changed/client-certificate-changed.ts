import { IsIn, IsString, IsUUID, Length, Matches, ValidateIf } from 'class-validator';
import { ROLE_VALUES, Role } from '../../enums/participant';
import { IsIsoDateTime } from '../../dto/validators';

/**
 * `client_certificate.changed` on auth.participants.v1 (DESIGN.md "Legacy integrations: mutual TLS"); key =
 * certificate_id. Written by auth in the transaction that registers a legacy participant's client certificate
 * (revision 1, `removed_at` null) or removes it (revision 2, `removed_at` set). Every service that checks tokens
 * keeps the registered certificates in memory from these events (libs/auth-guard CertificateRegistry): a request
 * made over mutual TLS with a registered, unexpired, unremoved certificate and no token acts as the participant,
 * with its role. The topic is compacted by key, so the latest state of every certificate stays on it.
 */
export interface ClientCertificateChangedData {
  certificate_id: string;
  participant_id: string;
  /** The participant's role and name: what a legacy call acts with (the caller a token would carry). */
  role: Role;
  name: string;
  /** RFC 8705 3.1: base64url (no padding) of the SHA-256 of the certificate's DER. */
  x5t_s256: string;
  /** ISO 8601 date-time (UTC): the certificate's notAfter; it is refused from then on. */
  not_after: string;
  /** ISO 8601 date-time (UTC) of the removal; null while the certificate is registered. */
  removed_at: string | null;
}

export class ClientCertificateChangedPayload implements ClientCertificateChangedData {
  @IsUUID('all') certificate_id!: string;
  @IsUUID('all') participant_id!: string;
  @IsIn(ROLE_VALUES) role!: Role;
  @IsString() @Length(1, 200) name!: string;
  @IsString() @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'x5t_s256 must be 43 base64url characters (a SHA-256)' }) x5t_s256!: string;
  @IsIsoDateTime() not_after!: string;
  @ValidateIf((o: ClientCertificateChangedData) => o.removed_at !== null) @IsIsoDateTime() removed_at!: string | null;
}
