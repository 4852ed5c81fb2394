import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { GradedMeasurementsResponse, GradingDataView, UserGradedMeasurementDto } from '@dtp/domain';
import { GradedMeasurementsService } from './graded-measurements.service';
import { DiamondIdParam, GradingIdParam } from '../path-ids';

@ApiTags('graded measurements')
@Controller()
@Roles('producer', 'manufacturer', 'retailer')
export class GradedMeasurementsController {
  constructor(private readonly service: GradedMeasurementsService) {}

  @Get('diamonds/:diamond_id/graded-measurements')
  @ApiOperation({ summary: 'List the graded measurements of a diamond you hold', description: '`{results: GradingDataView[]}`; 403 when another participant holds it; 404 when no such diamond exists.' })
  async list(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string): Promise<GradedMeasurementsResponse> {
    return this.service.list(caller, diamondId);
  }

  @Post('diamonds/:diamond_id/graded-measurements')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add your own graded measurement (`source: user`)', description: '201 with the record (inactive, selectable).' })
  async add(
    @CurrentCaller() caller: Caller,
    @DiamondIdParam() diamondId: string,
    @Body() body: UserGradedMeasurementDto,
  ): Promise<GradingDataView> {
    return this.service.addUserRecord(caller, diamondId, body);
  }

  @Patch('diamonds/:diamond_id/:grading_id/select')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Make a graded measurement the active one',
    description: 'The previously active record becomes inactive in the same transaction; 200 with the selected record.',
  })
  async select(
    @CurrentCaller() caller: Caller,
    @DiamondIdParam() diamondId: string,
    @GradingIdParam() gradingId: string,
  ): Promise<GradingDataView> {
    return this.service.select(caller, diamondId, gradingId);
  }

  @Patch('diamonds/:diamond_id/:grading_id/deselect')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate a graded measurement', description: 'No record is shown afterwards; 200 with the record.' })
  async deselect(
    @CurrentCaller() caller: Caller,
    @DiamondIdParam() diamondId: string,
    @GradingIdParam() gradingId: string,
  ): Promise<GradingDataView> {
    return this.service.deselect(caller, diamondId, gradingId);
  }
}
