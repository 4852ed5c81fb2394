import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ClientCertificateList,
  ClientCertificateView,
  canonicalUuid,
  isUuid,
  MessageErrorResponse,
  OnboardParticipantDto,
  OnboardParticipantResponse,
  ParticipantView,
  RegisterCertificateDto,
  UUID_PATTERN,
} from '@dtp/domain';
import { ADMIN_SCHEME, ApiErrors, PathIdPipe } from '@dtp/service-kit';
import { isCredentialText } from '../credentials/secret-hash';
import { ClientCertificatesService } from '../certificates/client-certificates.service';
import { ParticipantsService } from '../participants/participants.service';
import { AdminTokenGuard } from './admin-token.guard';

/**
 * Path ids checked for their format before any query (DESIGN.md "Input bounds"): out of format answers 404 like
 * an unknown id. Participant ids are UUIDs (compared lowercased); client ids are printable ASCII.
 */
const ParticipantIdParam = () =>
  Param('participant_id', new PathIdPipe(isUuid, { message: 'participant not found', reason: 'participant_not_found' }, canonicalUuid));
const CertificateIdParam = () =>
  Param('certificate_id', new PathIdPipe(isUuid, { message: 'certificate not found', reason: 'certificate_not_found' }, canonicalUuid));
const ClientIdParam = () => Param('client_id', new PathIdPipe(isCredentialText, { message: 'client not found', reason: 'client_not_found' }));

const PARTICIPANT_ID = '3f1c2f8e-1111-4222-8333-444455556666';
const CLIENT_ID = 'dtp_q3v9Kx2LmN8pR4sT6uW1yA';
const CREDENTIAL = { participant_id: PARTICIPANT_ID, client_id: CLIENT_ID, client_secret: 'Zx8c1Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcVbNm1q2', role: 'producer' };

const CERTIFICATE = {
  certificate_id: '8d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21',
  x5t_s256: 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2',
  subject: 'CN=erp.karowe.example',
  not_after: '2027-03-04T10:00:00.000Z',
};

const ApiParticipantIdParam = () =>
  ApiParam({
    name: 'participant_id',
    description: 'The participant id (a UUID, either case); anything else answers 404 like an unknown id.',
    schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, example: PARTICIPANT_ID },
  });
/** The operations without a body still read one that is sent: it must be readable. */
const unexpectedBody = {
  413: 'No body is needed; one larger than the limit (1 MiB) is refused.',
  422: 'No body is needed; one that is sent must be readable JSON (not malformed, at most 32 levels deep).',
} as const;
const participantNotFound = { description: 'Unknown participant (or an id that is not a UUID).', reasons: ['participant_not_found'] };

@ApiTags('admin')
@ApiBearerAuth(ADMIN_SCHEME)
@ApiResponse({
  status: 401,
  description: 'No admin token, or a wrong one (`Authorization: Bearer <AUTH_ADMIN_TOKEN>`).',
  type: MessageErrorResponse,
  headers: { 'WWW-Authenticate': { description: '`Bearer realm="dtp-admin"` (RFC 6750).', required: true, schema: { type: 'string' } } },
})
@ApiErrors({
  429: {
    description:
      'Too many wrong admin tokens from this address (ADMIN_TOKEN_FAILURE_LIMIT per minute): every admin request from it, the right token included, until `Retry-After` seconds have passed.',
    reasons: ['too_many_failures'],
  },
  503: 'The database cannot be reached; retry later.',
})
@UseGuards(AdminTokenGuard)
@Controller('admin')
export class AdminController {
  constructor(
    @Inject(ParticipantsService) private readonly participants: ParticipantsService,
    @Inject(ClientCertificatesService) private readonly certificates: ClientCertificatesService,
  ) {}

  @Post('participants')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'onboardParticipant',
    summary: 'Onboard a participant: returns its first client credential (the secret is shown once)',
    description: 'Creates the participant with one role and publishes `participant.onboarded`. The secret is stored only as a hash.',
  })
  @ApiBody({
    type: OnboardParticipantDto,
    examples: {
      producer: {
        summary: 'A producer with its provenance',
        value: { name: 'Karowe Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } },
      },
    },
  })
  @ApiCreatedResponse({ description: 'The participant and its first credential.', type: OnboardParticipantResponse, example: CREDENTIAL })
  @ApiErrors({
    413: 'The body is larger than the limit (1 MiB).',
    422: 'The body does not match OnboardParticipantRequest (every bad field named; unknown members refused).',
  })
  async onboard(@Body() body: OnboardParticipantDto): Promise<OnboardParticipantResponse> {
    const { participant_id, client_id, client_secret, role } = await this.participants.onboard(body);
    return { participant_id, client_id, client_secret, role };
  }

  @Get('participants/:participant_id')
  @ApiOperation({
    operationId: 'getParticipant',
    summary: 'A participant and its client ids (never secrets)',
    description: 'Its name, role, provenance and onboarding time, and its client credentials: id, creation time and revocation time (never a secret).',
  })
  @ApiParticipantIdParam()
  @ApiOkResponse({
    description: 'The participant.',
    type: ParticipantView,
    example: {
      participant_id: PARTICIPANT_ID,
      name: 'Karowe Mining',
      role: 'producer',
      provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' },
      created_at: '2025-03-04T10:00:00.000Z',
      integration_started_at: '2025-03-04T10:00:00.000Z',
      clients: [{ client_id: CLIENT_ID, created_at: '2025-03-04T10:00:00.000Z', revoked_at: null }],
    },
  })
  @ApiErrors({ 404: participantNotFound })
  get(@ParticipantIdParam() id: string): Promise<ParticipantView> {
    return this.participants.get(id);
  }

  @Post('participants/:participant_id/credentials')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'issueCredential',
    summary: 'Issue a further client credential for a participant',
    description: 'For rotating a secret: issue a new credential, switch the client to it, then revoke the old one.',
  })
  @ApiParticipantIdParam()
  @ApiCreatedResponse({ description: 'The new credential (the secret is shown once).', type: OnboardParticipantResponse, example: CREDENTIAL })
  @ApiErrors({ 404: participantNotFound, ...unexpectedBody })
  async addCredential(@ParticipantIdParam() id: string): Promise<OnboardParticipantResponse> {
    const { participant_id, client_id, client_secret, role } = await this.participants.addCredential(id);
    return { participant_id, client_id, client_secret, role };
  }

  @Post('participants/:participant_id/certificates')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'registerClientCertificate',
    summary: "Register a legacy participant's client certificate (mutual TLS)",
    description:
      'Only for participants whose integration started before 2023-06-30 (`integration_started_at`): they may call the ' +
      'platform, search and gis over mutual TLS with this certificate and no token, or get certificate-bound tokens ' +
      '(RFC 8705). Publishes `client_certificate.changed`; the services accept the certificate within about a second.',
  })
  @ApiParticipantIdParam()
  @ApiBody({ type: RegisterCertificateDto })
  @ApiCreatedResponse({ description: 'The registered certificate.', type: ClientCertificateView, example: CERTIFICATE })
  @ApiErrors({
    404: participantNotFound,
    409: {
      description:
        '`mtls_not_allowed`: the participant started its integration on or after 2023-06-30 (OAuth 2.0 credentials only); ' +
        '`certificate_already_registered`: a certificate with this thumbprint is registered already.',
      reasons: ['mtls_not_allowed', 'certificate_already_registered'],
    },
    413: 'The body is larger than the limit (1 MiB).',
    422: '`certificate_pem` is missing, not one PEM X.509 certificate, expired or not yet valid (the field named in `detail`).',
  })
  registerCertificate(@ParticipantIdParam() id: string, @Body() body: RegisterCertificateDto): Promise<ClientCertificateView> {
    return this.certificates.register(id, body.certificate_pem);
  }

  @Get('participants/:participant_id/certificates')
  @ApiOperation({ operationId: 'listClientCertificates', summary: "A participant's registered client certificates (not the removed ones)" })
  @ApiParticipantIdParam()
  @ApiOkResponse({ description: 'The certificates, oldest first.', type: ClientCertificateList, example: { certificates: [CERTIFICATE] } })
  @ApiErrors({ 404: participantNotFound })
  async listCertificates(@ParticipantIdParam() id: string): Promise<ClientCertificateList> {
    return { certificates: await this.certificates.list(id) };
  }

  @Delete('participants/:participant_id/certificates/:certificate_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeClientCertificate',
    summary: 'Remove a client certificate: the services refuse it from then on (removing it again answers 204 too)',
    description:
      'Publishes `client_certificate.changed` with `removed_at`: legacy calls with it are refused within about a second. ' +
      'Tokens already bound to it (cnf) stay valid until they expire, on requests made with it.',
  })
  @ApiParticipantIdParam()
  @ApiParam({ name: 'certificate_id', description: 'The certificate id (a UUID).', schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source } })
  @ApiNoContentResponse({ description: 'Removed (or already removed).' })
  @ApiErrors({
    404: { description: 'Unknown participant, or no such certificate of it.', reasons: ['participant_not_found', 'certificate_not_found'] },
    ...unexpectedBody,
  })
  async removeCertificate(@ParticipantIdParam() id: string, @CertificateIdParam() certificateId: string): Promise<void> {
    await this.certificates.remove(id, certificateId);
  }

  @Post('clients/:client_id/revoke')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeClient',
    summary: 'Revoke a client credential: it can no longer obtain tokens (issued tokens live until they expire)',
    description: 'Publishes `client.revoked`; the services then refuse the tokens it was issued before. Revoking it again ' + 'answers 204 too.',
  })
  @ApiParam({
    name: 'client_id',
    description: 'The client id (1 to 256 printable ASCII characters); anything else answers 404 like an unknown id.',
    schema: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[\\x20-\\x7E]+$', example: CLIENT_ID },
  })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiErrors({ 404: { description: 'Unknown client (or an id out of format).', reasons: ['client_not_found'] }, ...unexpectedBody })
  async revoke(@ClientIdParam() clientId: string): Promise<void> {
    await this.participants.revokeClient(clientId);
  }
}
