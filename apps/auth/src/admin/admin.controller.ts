import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { isUuid, OnboardParticipantDto } from '@dtp/domain';
import { PathIdPipe } from '@dtp/service-kit';
import { isCredentialText } from '../credentials/secret-hash';
import { IssuedCredential, ParticipantsService, ParticipantView } from '../participants/participants.service';
import { AdminTokenGuard } from './admin-token.guard';

type OnboardResponse = Omit<IssuedCredential, 'name'>;

/**
 * Path ids checked for their format before any query (DESIGN.md "Input bounds"): out of format answers 404 like
 * an unknown id. Participant ids are UUIDs (compared lowercased); client ids are printable ASCII.
 */
const ParticipantIdParam = () =>
  Param('participant_id', new PathIdPipe(isUuid, { message: 'participant not found', reason: 'participant_not_found' }), { transform: (v: string) => v.toLowerCase() });
const ClientIdParam = () => Param('client_id', new PathIdPipe(isCredentialText, { message: 'client not found', reason: 'client_not_found' }));

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminTokenGuard)
@Controller('admin')
export class AdminController {
  constructor(@Inject(ParticipantsService) private readonly participants: ParticipantsService) {}

  @Post('participants')
  @HttpCode(201)
  @ApiOperation({ summary: 'Onboard a participant: returns its first client credential (the secret is shown once)' })
  @ApiResponse({ status: 201, description: '{participant_id, client_id, client_secret, role}' })
  async onboard(@Body() body: OnboardParticipantDto): Promise<OnboardResponse> {
    const { participant_id, client_id, client_secret, role } = await this.participants.onboard(body);
    return { participant_id, client_id, client_secret, role };
  }

  @Get('participants/:participant_id')
  @ApiOperation({ summary: 'A participant and its client ids (never secrets)' })
  get(@ParticipantIdParam() id: string): Promise<ParticipantView> {
    return this.participants.get(id);
  }

  @Post('participants/:participant_id/credentials')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue a further client credential for a participant' })
  async addCredential(@ParticipantIdParam() id: string): Promise<OnboardResponse> {
    const { participant_id, client_id, client_secret, role } = await this.participants.addCredential(id);
    return { participant_id, client_id, client_secret, role };
  }

  @Post('clients/:client_id/revoke')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a client credential: it can no longer obtain tokens (issued tokens live until they expire)' })
  async revoke(@ClientIdParam() clientId: string): Promise<void> {
    await this.participants.revokeClient(clientId);
  }
}
