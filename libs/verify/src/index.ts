/**
 * @dtp/verify: checks a diamond's custody log answer with the published keys alone (docs/provenance.md). No
 * server code and no Node modules: WebCrypto (`globalThis.crypto.subtle`), `canonicalize` (RFC 8785) and `jose`
 * (JWS), so it runs in a browser (the passport page's badge, see browser.ts) and in Node 20+ (`dtp verify`).
 */
export { verifyCustody } from './custody';
export type { CustodyKeys, VerifiedCheckpoint, VerifiedStep, VerifyCustodyOptions, VerifyFailure, VerifyFailureCode, VerifyResult } from './custody';
export { verifyCredential } from './credential';
export type { CredentialFailure, CredentialFailureCode, CredentialVerifyResult, VerifyCredentialOptions } from './credential';
export { fetchAndVerify } from './fetch';
export type { FetchAndVerifyOptions, FetchVerifyResult, VerifyFetch } from './fetch';
export { canonicalJson, sha256Hex } from './hashing';
export { consistencyProblem, inclusionProblem, ProofError, rootFromInclusionProof, verifyConsistency, verifyInclusion } from './proofs';
export type { ConsistencyInput, InclusionInput } from './proofs';
