import { Body, Controller, Get, HttpCode, Inject, Param, PipeTransform, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OnboardParticipantDto } from '@dtp/domain';
import { RequestValidationException } from '@dtp/service-kit';
import { IssuedCredential, ParticipantsService, ParticipantView } from '../participants/participants.service';
import { AdminTokenGuard } from './admin-token.guard';

type OnboardResponse = Omit<IssuedCredential, 'name'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path participant_id must be a UUID: 422 with a `detail` entry otherwise. */
const uuid: PipeTransform<string, string> = {
  transform(value: string) {
    if (!UUID.test(value)) {
      throw new RequestValidationException([{ loc: ['path', 'participant_id'], msg: 'participant_id must be a UUID', type: 'uuid_parsing' }]);
    }
    return value.toLowerCase();
  },
};

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
  get(@Param('participant_id', uuid) id: string): Promise<ParticipantView> {
    return this.participants.get(id);
  }

  @Post('participants/:participant_id/credentials')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue a further client credential for a participant' })
  async addCredential(@Param('participant_id', uuid) id: string): Promise<OnboardResponse> {
    const { participant_id, client_id, client_secret, role } = await this.participants.addCredential(id);
    return { participant_id, client_id, client_secret, role };
  }

  @Post('clients/:client_id/revoke')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a client credential: it can no longer obtain tokens (issued tokens live until they expire)' })
  async revoke(@Param('client_id') clientId: string): Promise<void> {
    await this.participants.revokeClient(clientId);
  }
}
