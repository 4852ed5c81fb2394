import type { CustodyAnswer } from '@dtp/domain';

/** Where the passport gets a diamond's custody answer (search's custody module: CustodyQueries). */
export interface PassportCustodySource {
  answerFor(diamondId: string): Promise<CustodyAnswer | null>;
}

export const PASSPORT_CUSTODY = Symbol('PASSPORT_CUSTODY');
