import { HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { CompactSign, importJWK, type KeyLike } from 'jose';
import {
  CREDENTIAL_JWT_TYP,
  CREDENTIAL_TYPE,
  type CustodyPrivateJwk,
  type DiamondOriginCredential,
  type DiamondV1,
  recordSha256,
  VC_V2_CONTEXT,
} from '@dtp/domain';
import { SearchConfig } from '../config';
import { CustodyQueries } from '../custody/custody.queries';
import { ReadModelRepository } from '../read-model/read-model.repository';
import { originOf, rootsOf } from './origin';

const ALG = 'EdDSA';

/** The carats of the stone now: polished for a polished diamond, rough otherwise (as the record's decimal text). */
function caratsOf(record: DiamondV1): string | null {
  const polished = (record.polished ?? {}) as { carats?: unknown };
  const rough = (record.rough ?? {}) as { carats?: unknown };
  const c = record.lifecycle_state === 'rough' ? (rough.carats ?? polished.carats) : (polished.carats ?? rough.carats);
  return c === undefined || c === null ? null : String(c);
}

/**
 * Issues origin credentials (DESIGN.md "Looking a diamond up by what people hold"): the diamond's record and its
 * custody chain as search holds them, the origin from the chain's roots, signed as a VC-JOSE-COSE JWT with the custody
 * signing key (CUSTODY_SIGNING_KEY, the same key as platform's). Issued only when the record is the one the latest
 * covered entry hashed: a change made since the last checkpoint waits for the next one (409 custody_pending, Retry-After).
 */
@Injectable()
export class CredentialService {
  private signer?: Promise<{ kid: string; key: KeyLike | Uint8Array }>;

  constructor(
    @Inject(CustodyQueries) private readonly custody: CustodyQueries,
    @Inject(ReadModelRepository) private readonly records: ReadModelRepository,
    @Inject(SearchConfig) private readonly config: SearchConfig,
  ) {}

  /** The credential of a diamond as a JWT (compact JWS). */
  async credentialJwt(diamondId: string, now: Date = new Date()): Promise<string> {
    const credential = await this.credential(diamondId, now);
    const signer = await this.key();
    const payload = new TextEncoder().encode(JSON.stringify(credential));
    return new CompactSign(payload).setProtectedHeader({ alg: ALG, kid: signer.kid, typ: CREDENTIAL_JWT_TYP, cty: 'vc' }).sign(signer.key);
  }

  /** The credential (unsigned), as the JWT's payload carries it. */
  async credential(diamondId: string, now: Date = new Date()): Promise<DiamondOriginCredential> {
    const record = await this.records.find(diamondId);
    if (!record) throw new NotFoundException({ message: `diamond ${diamondId} not found` });
    const answer = await this.custody.answerFor(diamondId);
    const own = answer?.entries.filter((e) => e.entry.diamond_id === diamondId) ?? [];
    const latest = own[own.length - 1];
    // As the custody route: 404 until a checkpoint covers the diamond's first entry.
    if (!answer || !latest) throw new NotFoundException({ message: `no custody entries of diamond ${diamondId} are covered by a checkpoint yet` });
    if (latest.entry.record_sha256 !== recordSha256(record)) {
      throw notYet(`the custody log has not caught up with the latest change of diamond ${diamondId} yet: its next checkpoint comes within seconds, ask again`);
    }
    // The roots' current records (one query): their provenance names the countries.
    const roots = await this.records.findMany(rootsOf(answer));
    if (roots.has(diamondId)) roots.set(diamondId, record);
    const origin = originOf(answer, roots);
    const grading = record.grading?.[0];
    const base = this.config.PLATFORM_PUBLIC_URL.replace(/\/+$/, '');
    return {
      '@context': [VC_V2_CONTEXT],
      type: ['VerifiableCredential', CREDENTIAL_TYPE],
      issuer: base,
      validFrom: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      credentialSubject: {
        id: `${base}/id/diamond/${encodeURIComponent(diamondId)}`,
        origin_countries: origin.countries,
        origin_status: origin.status,
        carats: caratsOf(record),
        lifecycle_state: record.lifecycle_state,
        ...(grading?.grader_report_number ? { grader_report_number: grading.grader_report_number } : {}),
        ...(grading?.grading_lab ? { grading_lab: grading.grading_lab } : {}),
        custody: {
          entry: latest.entry,
          entry_hash: latest.entry_hash,
          leaf_index: latest.leaf_index,
          inclusion_proof: latest.inclusion_proof,
          checkpoint: answer.checkpoint,
        },
      },
      evidence: [{ type: ['DiamondRecordEvidence'], record: record as unknown as Record<string, unknown> }],
    };
  }

  private key(): Promise<{ kid: string; key: KeyLike | Uint8Array }> {
    const text = this.config.CUSTODY_SIGNING_KEY;
    if (!text) {
      return Promise.reject(
        new HttpException(
          { message: 'origin credentials are not available here: search has no custody signing key (set CUSTODY_SIGNING_KEY to the key platform signs with)' },
          HttpStatus.SERVICE_UNAVAILABLE,
        ),
      );
    }
    this.signer ??= (async () => {
      const jwk = JSON.parse(text) as CustodyPrivateJwk;
      return { kid: jwk.kid, key: await importJWK({ ...jwk, alg: ALG }, ALG) };
    })();
    return this.signer;
  }
}

/** 409 `custody_pending` with Retry-After: the record is newer than the log's latest checkpoint, which catches up within seconds. */
function notYet(message: string): HttpException {
  return new HttpException({ message, reason: 'custody_pending', retry_after_seconds: 2 }, HttpStatus.CONFLICT);
}
