import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { CreateRoughDiamondDto, DiamondV1 } from '@dtp/domain';
import { RegistrationService } from './registration.service';

@ApiTags('registration')
@Controller()
export class RegistrationController {
  constructor(private readonly registration: RegistrationService) {}

  @Post('diamonds/rough/create')
  @HttpCode(200)
  @Roles('producer', 'manufacturer')
  @ApiOperation({
    summary: 'Register a rough diamond',
    description:
      'Registers a rough diamond against the caller\'s box. 200 with the DiamondV1 record; 409 `diamond_not_unique` when the ' +
      'participant_id is already registered in that box; 422 naming each bad field; 403 for retailers.',
  })
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateRoughDiamondDto): Promise<DiamondV1> {
    return this.registration.registerRough(caller, body);
  }
}
