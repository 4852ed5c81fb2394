import type { CustodyCheckpoint, CustodyEntry } from './entry';

/**
 * The origin credential (DESIGN.md "Looking a diamond up by what people hold"): a W3C Verifiable Credential 2.0
 * secured as a JWT (VC-JOSE-COSE): the JWT's payload IS the credential below, its protected header
 * `{alg: "EdDSA", kid, typ: "vc+jwt", cty: "vc"}`, signed with the custody signing key (the `kid` is in
 * `{base_url}/.well-known/custody-keys.json`). Served as `application/vc+jwt`.
 */
export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const CREDENTIAL_MEDIA_TYPE = 'application/vc+jwt';
export const CREDENTIAL_JWT_TYP = 'vc+jwt';
export const CREDENTIAL_TYPE = 'DiamondOriginCredential';

/**
 * `confirmed`: every root diamond the chain reaches (a producer's registration) has a provenance with a country;
 * `pending`: at least one has not (a manufacturer's rough before the platform set its provenance, a producer whose
 * onboarding had not arrived, a root no longer known): then `origin_countries` is empty, the credential claims none.
 */
export type OriginStatus = 'confirmed' | 'pending';

/** The custody entry a credential's claims are tied to: the diamond's latest entry under a signed checkpoint. */
export interface CredentialCustody {
  /** The entry itself (its JCS hashes to entry_hash; its record_sha256 is the hash of the record in `evidence`). */
  entry: CustodyEntry;
  entry_hash: string;
  leaf_index: number;
  /** RFC 9162 inclusion proof of the entry's leaf in the checkpoint's tree (hex, leaf side first). */
  inclusion_proof: string[];
  /** The signed checkpoint (its `jws` verifies with the custody keys too). */
  checkpoint: CustodyCheckpoint;
}

export interface DiamondOriginSubject {
  /** `{public_base}/id/diamond/{diamond_id}`. */
  id: string;
  /** ISO 3166-1 alpha-2 of the root producers' provenance, sorted, distinct; empty unless origin_status is confirmed. */
  origin_countries: string[];
  origin_status: OriginStatus;
  /** The carats of the stone now: polished carats for a polished diamond, rough carats otherwise (decimal text). */
  carats: string | null;
  lifecycle_state: string;
  /** The active graded measurement's report number and lab, when there is one. */
  grader_report_number?: string;
  grading_lab?: string;
  custody: CredentialCustody;
}

/** The record the claims come from (the DiamondV1 search serves), hashed into the custody entry's record_sha256. */
export interface DiamondRecordEvidence {
  type: ['DiamondRecordEvidence'];
  record: Record<string, unknown>;
}

export interface DiamondOriginCredential {
  '@context': [typeof VC_V2_CONTEXT, ...string[]];
  type: ['VerifiableCredential', typeof CREDENTIAL_TYPE];
  /** The platform's public base address ({base_url}). */
  issuer: string;
  /** When the credential was issued (ISO 8601). */
  validFrom: string;
  credentialSubject: DiamondOriginSubject;
  evidence: [DiamondRecordEvidence];
}
