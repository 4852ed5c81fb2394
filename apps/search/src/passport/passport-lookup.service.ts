import { Inject, Injectable } from '@nestjs/common';
import { UnitOfWork } from '@dtp/database';
import { sharedLookupQuery } from '../lookup/lookup.queries';

/** A shared diamond the look-up found: its longest-living live link, and what its passport shows of its grading. */
export interface SharedMatch {
  shareId: string;
  lab: string | null;
  carats: string | null;
}

/**
 * The passport's "look up by report number" (DESIGN.md "Looking a diamond up by what people hold"): only diamonds
 * whose holder shared them (a live link) are found; the answer says nothing about any other diamond. One query for
 * every outcome (found, shared by nobody, unknown), so no outcome takes a different path.
 */
@Injectable()
export class PassportLookupService {
  constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  async shared(reportNumber: string, gradingLab: string | null, now: Date = new Date()): Promise<SharedMatch[]> {
    const { sql, params } = sharedLookupQuery(reportNumber, gradingLab, now);
    const rows = await this.uow.standalone.rows<{ share_id: string; lab: string | null; carats: string | null }>(sql, params);
    return rows.map((r) => ({ shareId: r.share_id, lab: r.lab, carats: r.carats }));
  }
}
