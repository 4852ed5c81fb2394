import type { ConsistencyAnswer, CustodyAnswer } from '@dtp/domain';

/** Where the passport gets a diamond's custody answer and consistency proofs (search's custody module: CustodyQueries). */
export interface PassportCustodySource {
  answerFor(diamondId: string): Promise<CustodyAnswer | null>;
  consistency(from: number, to: number): Promise<ConsistencyAnswer>;
}

export const PASSPORT_CUSTODY = Symbol('PASSPORT_CUSTODY');
