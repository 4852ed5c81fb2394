import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { GRADING_EXAMPLE, GradedMeasurementsResponse, GradingDataView, USER_GRADING_EXAMPLE, UserGradedMeasurementDto } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiDiamondAndGradingParams, ApiDiamondIdParam, ApiNoBodyErrors, ApiPathErrors, Errors, SAME_SHAPE_PATHS } from '../api-docs';
import { GradedMeasurementsService } from './graded-measurements.service';
import { DiamondIdParam, GradingIdParam } from '../path-ids';

const ROLE_OR_HOLDER = {
  description: 'A role other than producer, manufacturer or retailer, or another participant holds the diamond',
  reasons: ['not_holder'],
};

@ApiTags('graded measurements')
@Controller()
@Roles('producer', 'manufacturer', 'retailer')
export class GradedMeasurementsController {
  constructor(private readonly service: GradedMeasurementsService) {}

  @Get('diamonds/:diamond_id/graded-measurements')
  @ApiOperation({
    operationId: 'listGradedMeasurements',
    summary: 'List the graded measurements of a diamond you hold',
    description:
      "`{results: GradingDataView[]}`: the labs' gradings (`source: gis`) and your own (`source: user`); at most one is active. 403 when another participant holds it; 404 when no such diamond exists.",
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiPathErrors()
  @ApiOkResponse({
    description: 'Every graded measurement of the diamond.',
    type: GradedMeasurementsResponse,
    example: { results: [GRADING_EXAMPLE, USER_GRADING_EXAMPLE] },
  })
  @ApiErrors({ 403: ROLE_OR_HOLDER, 404: Errors.diamondNotFound, 503: Errors.unavailable })
  async list(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string): Promise<GradedMeasurementsResponse> {
    return this.service.list(caller, diamondId);
  }

  @Post('diamonds/:diamond_id/graded-measurements')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'addGradedMeasurement',
    summary: 'Add your own graded measurement (`source: user`)',
    description: '201 with the record (inactive, selectable); `select` makes it the one the record shows. Not a change of the diamond record.',
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiPathErrors()
  @ApiBody({
    type: UserGradedMeasurementDto,
    examples: {
      ownMeasurement: {
        summary: "The holder's own grading of a polished stone",
        value: { carats: 1.01, shape: 'Round', colour: 'H', clarity: 'VS2', graded_date: '2024-06-03T00:00:00Z', measurement_text: '6.40 - 6.46 x 3.97 mm' },
      },
    },
  })
  @ApiCreatedResponse({ description: 'The new record, inactive and selectable.', type: GradingDataView, example: USER_GRADING_EXAMPLE })
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: Errors.diamondNotFound,
    409: { description: Errors.inTransit, reasons: ['in_transit'] },
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async add(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Body() body: UserGradedMeasurementDto): Promise<GradingDataView> {
    return this.service.addUserRecord(caller, diamondId, body);
  }

  @Patch('diamonds/:diamond_id/:grading_id/select')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'selectGradedMeasurement',
    summary: 'Make a graded measurement the active one',
    description:
      'The previously active record becomes inactive in the same transaction, and the diamond record (a new version) shows the selected one ' +
      'in `grading`. Selecting the active record changes nothing. 200 with the selected record; 409 `not_selectable` for a record that may not be selected.' +
      SAME_SHAPE_PATHS,
  })
  @ApiDiamondAndGradingParams()
  @ApiPathErrors()
  @ApiOkResponse({ description: 'The selected record (`is_active: true`).', type: GradingDataView, example: GRADING_EXAMPLE })
  @ApiNoBodyErrors()
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: 'No such diamond, or no such graded measurement of it.',
    409: { description: `${Errors.inTransit}, or the record is not selectable`, reasons: ['in_transit', 'not_selectable'] },
    503: Errors.unavailable,
  })
  async select(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @GradingIdParam() gradingId: string): Promise<GradingDataView> {
    return this.service.select(caller, diamondId, gradingId);
  }

  @Patch('diamonds/:diamond_id/:grading_id/deselect')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deselectGradedMeasurement',
    summary: 'Deactivate a graded measurement',
    description:
      'No record is shown afterwards (`grading` becomes null in a new version of the diamond record). Idempotent. 200 with the record.' + SAME_SHAPE_PATHS,
  })
  @ApiDiamondAndGradingParams()
  @ApiPathErrors()
  @ApiOkResponse({ description: 'The record (`is_active: false`).', type: GradingDataView, example: { ...GRADING_EXAMPLE, is_active: false } })
  @ApiNoBodyErrors()
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: 'No such diamond, or no such graded measurement of it.',
    409: { description: Errors.inTransit, reasons: ['in_transit'] },
    503: Errors.unavailable,
  })
  async deselect(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @GradingIdParam() gradingId: string): Promise<GradingDataView> {
    return this.service.deselect(caller, diamondId, gradingId);
  }
}
