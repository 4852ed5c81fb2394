import type { ClientCertificateChangedData, Role } from '@dtp/domain';

/** A legacy participant's registered client certificate, as the services hold it. */
export interface RegisteredCertificate {
  certificateId: string;
  participantId: string;
  role: Role;
  name: string;
  x5tS256: string;
  /** The certificate's notAfter (ms since the epoch): refused from then on. */
  notAfter: number;
}

/**
 * The client certificates registered for legacy (mutual TLS) participants, in memory, by thumbprint
 * (docs/auth.md "Mutual TLS"): fed by `client_certificate.changed` on auth.participants.v1, the way the deny-list
 * is fed by `client.revoked` (RevocationEventsController reads the whole topic under a group of each instance's
 * own). A certificate's events carry a revision (1 registered, 2 removed): an older one than held is ignored, so
 * a replay or a redelivery changes nothing, and a removal stays a removal.
 */
export class CertificateRegistry {
  private readonly byThumbprint = new Map<string, RegisteredCertificate>();
  private readonly revisions = new Map<string, number>();

  /** Applies one event; returns whether it changed anything. */
  apply(data: ClientCertificateChangedData, revision: number): boolean {
    const held = this.revisions.get(data.certificate_id);
    if (held !== undefined && held >= revision) return false;
    this.revisions.set(data.certificate_id, revision);
    const current = this.byThumbprint.get(data.x5t_s256);
    if (data.removed_at !== null) {
      if (current?.certificateId === data.certificate_id) this.byThumbprint.delete(data.x5t_s256);
      return true;
    }
    this.byThumbprint.set(data.x5t_s256, {
      certificateId: data.certificate_id,
      participantId: data.participant_id,
      role: data.role,
      name: data.name,
      x5tS256: data.x5t_s256,
      notAfter: Date.parse(data.not_after),
    });
    return true;
  }

  /** The registered certificate with this thumbprint (expired or not), if any. */
  find(x5tS256: string): RegisteredCertificate | undefined {
    return this.byThumbprint.get(x5tS256);
  }

  get size(): number {
    return this.byThumbprint.size;
  }
}
