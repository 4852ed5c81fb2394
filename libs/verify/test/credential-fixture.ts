import { CompactSign } from 'jose';
import type { DiamondOriginCredential } from '@dtp/domain';
import { SigningKey, SyntheticLog } from './synthetic-log';

/** Signs a credential as search does: a compact JWS of its JSON, header {alg, kid, typ: vc+jwt, cty: vc}. */
export async function signCredential(vc: unknown, key: SigningKey, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(vc)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'vc+jwt', cty: 'vc', ...header })
    .sign(key.privateKey);
}

/** A polished diamond from a mine in Botswana (a synthetic log), its origin credential as search issues it. */
export async function originCredential(key: SigningKey, base = 'https://platform.example.test'): Promise<DiamondOriginCredential> {
  const mine = 'm0000000000000000000201';
  const cut = 'c0000000000000000000201';
  const log = new SyntheticLog();
  log.change(mine, 'registered', { fields: { lifecycle_state: 'rough', provenance: { is_country_code_available: true, country_code: 'BW' } } });
  log.change(mine, 'polished');
  log.change(cut, 'registered', {
    parent: mine,
    fields: {
      lifecycle_state: 'polished',
      polished: { carats: '0.90' },
      provenance: { is_country_code_available: true, country_code: 'BW' },
      grading: [{ grader_report_number: '7788990011', grading_lab: 'IGI' }],
    },
  });
  const answer = await log.answer(cut, key);
  const latest = answer.entries.at(-1)!;
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'DiamondOriginCredential'],
    issuer: base,
    validFrom: '2026-01-05T09:00:00Z',
    credentialSubject: {
      id: `${base}/id/diamond/${cut}`,
      origin_countries: ['BW'],
      origin_status: 'confirmed',
      carats: '0.90',
      lifecycle_state: 'polished',
      grader_report_number: '7788990011',
      grading_lab: 'IGI',
      custody: {
        entry: latest.entry,
        entry_hash: latest.entry_hash,
        leaf_index: latest.leaf_index,
        inclusion_proof: latest.inclusion_proof,
        checkpoint: answer.checkpoint,
      },
    },
    evidence: [{ type: ['DiamondRecordEvidence'], record: log.record(cut)! }],
  };
}
