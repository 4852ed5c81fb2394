import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { GRADING_LAB_VALUES, GradingLab } from '../enums/grading-lab';
import { DiamondV1 } from '../records/diamond-v1';
import { ID_MAX_LENGTH } from '../rules/limits';

/** Most diamonds one lookup answers (DESIGN.md "Looking a diamond up by what people hold"). */
export const LOOKUP_MAX_RESULTS = 20;

/** The lookup's criteria, each a member of the active graded measurement (GradingDataView); exactly one per call. */
export const LOOKUP_CRITERIA = ['grader_report_number', 'inscription', 'certificate_number'] as const;
export type LookupCriterion = (typeof LOOKUP_CRITERIA)[number];

/** A lab code in any case becomes the list's spelling (`gia` -> `GIA`); anything else is left for @IsIn to refuse. */
const canonicalLab = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? (GRADING_LAB_VALUES.find((lab) => lab.toLowerCase() === value.toLowerCase()) ?? value) : value;

const criterion = (description: string, example: string) =>
  ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, description, example });

/**
 * Query of search's `GET /v1/lookup` (DESIGN.md "Looking a diamond up by what people hold"): what people who meet a
 * diamond hold. Exactly one of `grader_report_number`, `inscription`, `certificate_number` (the service answers 422
 * naming them for none or several); `grading_lab` narrows a report number only. Every value is compared exactly and
 * case-insensitively with the diamond's ACTIVE graded measurement; bounded like the graded measurement's own members
 * (ID_MAX_LENGTH).
 */
export class LookupQueryDto {
  @criterion("The grading report's number (`grader_report_number` of the active graded measurement).", '2141438172')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(ID_MAX_LENGTH)
  grader_report_number?: string;

  @ApiPropertyOptional({
    type: 'string',
    enum: GRADING_LAB_VALUES,
    description: 'Only with `grader_report_number`: the lab that issued the report (any case).',
    example: 'GIA',
  })
  @IsOptional()
  @Transform(canonicalLab)
  @IsString()
  @IsIn(GRADING_LAB_VALUES as unknown as string[], { message: `grading_lab must be one of ${GRADING_LAB_VALUES.join(', ')}` })
  grading_lab?: GradingLab;

  @criterion('A laser inscription on the girdle: one of `grader_inscription_numbers` of the active graded measurement.', 'GIA 2141438172')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(ID_MAX_LENGTH)
  inscription?: string;

  @criterion("The grading certificate's number (`grader_certificate_number` of the active graded measurement).", 'C-2141438172')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(ID_MAX_LENGTH)
  certificate_number?: string;
}

/** Search's `GET /v1/lookup` answer: the matching diamonds' current records (at most LOOKUP_MAX_RESULTS; `[]` for none). */
export class LookupAnswer {
  @ApiProperty({
    type: () => DiamondV1,
    isArray: true,
    maxItems: LOOKUP_MAX_RESULTS,
    description: `The current DiamondV1 of each matching diamond (what \`GET /v1/diamonds/{id}\` answers), ordered by \`diamond_id\`, at most ${LOOKUP_MAX_RESULTS}; empty when none matches.`,
  })
  results!: DiamondV1[];
}
