import { Controller, Get, HttpException, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '@dtp/auth-guard';
import { CREDENTIAL_MEDIA_TYPE } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiSearchDiamondIdParam } from '../custody/custody.controller';
import { DiamondIdParam } from '../diamonds/path-ids';
import { CredentialService } from './credential.service';

export const CREDENTIAL_DESCRIPTION =
  'A W3C Verifiable Credential 2.0 secured as a JWT (VC-JOSE-COSE: `application/vc+jwt`, protected header `{alg: "EdDSA", kid, typ: "vc+jwt", cty: "vc"}`), ' +
  "signed with the custody signing key (its `kid` is in platform's `/.well-known/custody-keys.json`). The payload is the credential: " +
  '`type` `["VerifiableCredential", "DiamondOriginCredential"]`, `issuer` the platform base address, `validFrom`, and `credentialSubject` ' +
  "`{id: {base}/id/diamond/{id}, origin_countries (ISO 3166-1 alpha-2 of the root producers' provenance, through every split, polish and registration against a shipment), " +
  'origin_status ("confirmed", or "pending": some root has no confirmed provenance yet, and then no country is claimed), carats, lifecycle_state, ' +
  'grader_report_number and grading_lab of the active grading (when there is one), custody: {entry, entry_hash, leaf_index, inclusion_proof, checkpoint}}`; ' +
  "`evidence[0].record` is the DiamondV1 the claims come from (it hashes to the entry's `record_sha256`). `dtp verify --credential FILE` and `@dtp/verify` " +
  '(`verifyCredential`) check it offline with the custody keys alone.';

export const CREDENTIAL_EXAMPLE = 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6InZjK2p3dCIsImN0eSI6InZjIn0.eyJAY29udGV4dCI6Wy4uLl19.c2lnbmF0dXJl';

export const CREDENTIAL_503 =
  'Search has no custody signing key configured (CUSTODY_SIGNING_KEY, the key platform signs with), or its database cannot be reached: `{message}`.';

export const CREDENTIAL_409 =
  "`custody_pending`: the diamond changed since the custody log's latest checkpoint, so its record is not yet the one the log proves; ask again after `Retry-After` seconds (checkpoints come every few seconds): `{message, reason}`.";

export const credentialResponse = () =>
  ApiResponse({
    status: 200,
    description: 'The credential, a compact JWS (JWT).',
    content: {
      [CREDENTIAL_MEDIA_TYPE]: { schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' }, example: CREDENTIAL_EXAMPLE },
    },
  });

/** Sends a credential as `application/vc+jwt`; a 503 of a log that has not caught up says when to ask again. */
export async function sendCredential(reply: FastifyReply, issue: () => Promise<string>): Promise<void> {
  let jwt: string;
  try {
    jwt = await issue();
  } catch (err) {
    const body = err instanceof HttpException ? (err.getResponse() as { retry_after_seconds?: number }) : undefined;
    if (typeof body?.retry_after_seconds === 'number') void reply.header('Retry-After', String(body.retry_after_seconds));
    throw err;
  }
  await reply.status(200).type(CREDENTIAL_MEDIA_TYPE).header('cache-control', 'no-store').send(jwt);
}

/** `GET /v1/diamonds/{id}/credential`: the origin credential, for the same callers as the custody route (non-participants). */
@ApiTags('custody')
@Roles('non_participant')
@Controller('v1/diamonds')
export class CredentialController {
  constructor(@Inject(CredentialService) private readonly credentials: CredentialService) {}

  @Get(':diamond_id/credential')
  @ApiOperation({ operationId: 'getDiamondCredential', summary: "The diamond's origin credential (VC 2.0 as a JWT)", description: CREDENTIAL_DESCRIPTION })
  @ApiSearchDiamondIdParam()
  @credentialResponse()
  @ApiErrors({
    403: 'The caller is not a non-participant (the search API is for authenticated non-participants only).',
    404: 'Unknown or deleted diamond (or an id out of format), or no custody entry of it covered by a checkpoint yet: `{message}`.',
    409: CREDENTIAL_409,
    503: CREDENTIAL_503,
  })
  async credential(@DiamondIdParam() diamondId: string, @Res() reply: FastifyReply): Promise<void> {
    await sendCredential(reply, () => this.credentials.credentialJwt(diamondId));
  }
}
