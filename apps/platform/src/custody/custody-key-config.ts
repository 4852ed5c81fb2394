/** CUSTODY_SIGNING_KEY's check lives in @dtp/domain: search signs origin credentials with the same key. */
export { CustodySigningKeyText, custodyKeyProblem } from '@dtp/domain';
export type { CustodyPrivateJwk } from '@dtp/domain';
