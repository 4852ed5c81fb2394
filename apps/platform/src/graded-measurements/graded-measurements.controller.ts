import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { GradedMeasurementsResponse, GradingDataView, UserGradedMeasurementDto } from '@dtp/domain';
import { GradedMeasurementsService } from './graded-measurements.service';

@ApiTags('graded measurements')
@Controller()
@Roles('producer', 'manufacturer', 'retailer')
export class GradedMeasurementsController {
  constructor(private readonly service: GradedMeasurementsService) {}

  @Get('diamonds/:diamond_id/graded-measurements')
  @ApiOperation({ summary: 'List the graded measurements of a diamond you hold', description: '`{results: GradingDataView[]}`; 404 when not found or not held.' })
  async list(@CurrentCaller() caller: Caller, @Param('diamond_id') diamondId: string): Promise<GradedMeasurementsResponse> {
    return this.service.list(caller, diamondId);
  }

  @Post('diamonds/:diamond_id/graded-measurements')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add your own graded measurement (`source: user`)', description: '201 with the record (inactive, selectable).' })
  async add(
    @CurrentCaller() caller: Caller,
    @Param('diamond_id') diamondId: string,
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
    @Param('diamond_id') diamondId: string,
    @Param('grading_id') gradingId: string,
  ): Promise<GradingDataView> {
    return this.service.select(caller, diamondId, gradingId);
  }

  @Patch('diamonds/:diamond_id/:grading_id/deselect')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivate a graded measurement', description: 'No record is shown afterwards; 200 with the record.' })
  async deselect(
    @CurrentCaller() caller: Caller,
    @Param('diamond_id') diamondId: string,
    @Param('grading_id') gradingId: string,
  ): Promise<GradingDataView> {
    return this.service.deselect(caller, diamondId, gradingId);
  }
}
