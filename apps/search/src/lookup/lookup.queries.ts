import { LOOKUP_MAX_RESULTS, LookupCriterion } from '@dtp/domain';

/** The read model's column each criterion is compared with (migration Lookup1765000000000: lowercased, active grading only). */
const COLUMN: Record<LookupCriterion, string> = {
  grader_report_number: 'lookup_report_number',
  certificate_number: 'lookup_certificate_number',
  inscription: 'lookup_inscriptions',
};

/** One lookup: a criterion and its value, and for a report number optionally its lab. */
export interface LookupCriteria {
  criterion: LookupCriterion;
  value: string;
  gradingLab?: string | null;
}

/**
 * The lookup's SQL and parameters: the matching current diamonds' stored JSON text (what `GET /v1/diamonds/{id}`
 * answers), ordered by diamond_id, at most `limit`. Each criterion is one indexed comparison (B-tree `=`, GIN `@>`
 * for an inscription); the lab narrows the report number's matches. Exported for the test that EXPLAINs it.
 */
export function lookupQuery(c: LookupCriteria, limit = LOOKUP_MAX_RESULTS): { sql: string; params: unknown[] } {
  const column = COLUMN[c.criterion];
  const params: unknown[] = [c.value, limit];
  const match = c.criterion === 'inscription' ? `${column} @> ARRAY[lower($1)]` : `${column} = lower($1)`;
  let lab = '';
  if (c.criterion === 'grader_report_number' && c.gradingLab) {
    params.push(c.gradingLab);
    lab = ` AND lookup_grading_lab = lower($3)`;
  }
  // The matches first, through the criterion's index (MATERIALIZED: otherwise the planner may walk the primary key
  // in diamond_id order, filtering every row, hoping to fill the LIMIT early: a whole scan when nothing matches, and
  // what it chose for the GIN `@>`, whose selectivity it cannot estimate). Then the first `limit` by diamond_id,
  // and their records by primary key.
  return {
    sql: `WITH matched AS MATERIALIZED (SELECT diamond_id FROM search_diamonds WHERE ${match}${lab}),
            first AS (SELECT diamond_id FROM matched ORDER BY diamond_id LIMIT $2)
          SELECT d.record::text AS record FROM search_diamonds d JOIN first USING (diamond_id)
          WHERE d.record IS NOT NULL ORDER BY d.diamond_id`,
    params,
  };
}

/**
 * The passport's "look up by report number": the live share links (not revoked, not expired at `$3`) of the current
 * diamonds whose active report number (and lab, when given) matches, one per diamond (the one that lives longest),
 * with the active grading's lab and carats (what the passports themselves show), at most LOOKUP_MAX_RESULTS.
 */
export function sharedLookupQuery(reportNumber: string, gradingLab: string | null, now: Date): { sql: string; params: unknown[] } {
  return {
    sql: `SELECT d.diamond_id, s.share_id, d.record->'grading'->0->>'grading_lab' AS lab, d.record->'grading'->0->>'carats' AS carats
          FROM search_diamonds d
          JOIN LATERAL (
            SELECT share_id FROM search_shares s
            WHERE s.diamond_id = d.diamond_id AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > $3)
            ORDER BY s.expires_at DESC NULLS FIRST, s.share_id LIMIT 1
          ) s ON true
          WHERE d.lookup_report_number = lower($1) AND ($2::text IS NULL OR d.lookup_grading_lab = lower($2::text)) AND d.record IS NOT NULL
          ORDER BY d.diamond_id LIMIT $4`,
    params: [reportNumber, gradingLab, now, LOOKUP_MAX_RESULTS],
  };
}
