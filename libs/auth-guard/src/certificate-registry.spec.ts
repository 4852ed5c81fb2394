import type { ClientCertificateChangedData } from '@dtp/domain';
import { CertificateRegistry } from './certificate-registry';

/** The services' in-memory registry of legacy client certificates, fed by `client_certificate.changed`. */
describe('CertificateRegistry', () => {
  const X5T = 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2';
  const registered: ClientCertificateChangedData = {
    certificate_id: '8d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21',
    participant_id: '3f1c2f8e-1111-4222-8333-444455556666',
    role: 'retailer',
    name: 'Old ERP',
    x5t_s256: X5T,
    not_after: '2030-01-01T00:00:00.000Z',
    removed_at: null,
  };
  const removed = { ...registered, removed_at: '2026-01-01T00:00:00.000Z' };

  it('holds a registration by thumbprint, with its participant, role and notAfter', () => {
    const r = new CertificateRegistry();
    expect(r.apply(registered, 1)).toBe(true);
    expect(r.find(X5T)).toEqual({
      certificateId: registered.certificate_id,
      participantId: registered.participant_id,
      role: 'retailer',
      name: 'Old ERP',
      x5tS256: X5T,
      notAfter: Date.parse('2030-01-01T00:00:00.000Z'),
    });
    expect(r.size).toBe(1);
  });

  it('a removal removes it; a replayed or late registration (older revision) does not bring it back', () => {
    const r = new CertificateRegistry();
    r.apply(registered, 1);
    expect(r.apply(removed, 2)).toBe(true);
    expect(r.find(X5T)).toBeUndefined();
    expect(r.apply(registered, 1)).toBe(false);
    expect(r.apply(removed, 2)).toBe(false);
    expect(r.find(X5T)).toBeUndefined();
    // removal seen before the registration (replay order of another partition): it stays removed
    const late = new CertificateRegistry();
    late.apply(removed, 2);
    late.apply(registered, 1);
    expect(late.find(X5T)).toBeUndefined();
  });

  it('removing an old registration does not remove the same thumbprint registered again under a new id', () => {
    const r = new CertificateRegistry();
    r.apply(registered, 1);
    r.apply(removed, 2);
    const again = { ...registered, certificate_id: '9d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21', participant_id: '4f1c2f8e-1111-4222-8333-444455556666' };
    r.apply(again, 1);
    r.apply(removed, 2); // the old one's removal, redelivered
    expect(r.find(X5T)?.participantId).toBe(again.participant_id);
  });
});
