import { Inject, Injectable } from '@nestjs/common';
import { UnitOfWork } from '@dtp/database';
import { LOOKUP_CRITERIA, LookupQueryDto } from '@dtp/domain';
import { RequestValidationException } from '@dtp/service-kit';
import { LookupCriteria, lookupQuery } from './lookup.queries';

const CRITERIA_TEXT = LOOKUP_CRITERIA.join(', ');

/**
 * The one criterion of a lookup query, or a 422 naming the members: none given, several given, or `grading_lab`
 * without `grader_report_number`.
 */
export function criteriaOf(query: LookupQueryDto): LookupCriteria {
  const given = LOOKUP_CRITERIA.filter((c) => query[c] !== undefined);
  if (given.length === 0) {
    throw new RequestValidationException([{ loc: ['query'], msg: `exactly one of ${CRITERIA_TEXT} is required; none was given`, type: 'missing' }]);
  }
  if (given.length > 1) {
    throw new RequestValidationException([
      { loc: ['query'], msg: `exactly one of ${CRITERIA_TEXT} is allowed; several were given: ${given.join(', ')}`, type: 'too_many_criteria' },
    ]);
  }
  const criterion = given[0];
  if (query.grading_lab !== undefined && criterion !== 'grader_report_number') {
    throw new RequestValidationException([
      { loc: ['query', 'grading_lab'], msg: `grading_lab narrows grader_report_number only, not ${criterion}`, type: 'value_error' },
    ]);
  }
  return { criterion, value: query[criterion]!, gradingLab: query.grading_lab ?? null };
}

/** Search's lookup by what people hold (DESIGN.md "Looking a diamond up by what people hold"). */
@Injectable()
export class LookupService {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  /**
   * `{"results": [...]}` as JSON text: the matching diamonds' stored record texts, sent as they are (the same bytes
   * `GET /v1/diamonds/{id}` answers), joined without parsing them.
   */
  async lookupJson(query: LookupQueryDto): Promise<string> {
    const { sql, params } = lookupQuery(criteriaOf(query));
    const rows = await this.uow.standalone.rows<{ record: string }>(sql, params);
    return `{"results":[${rows.map((r) => r.record).join(',')}]}`;
  }
}
