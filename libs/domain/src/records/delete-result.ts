import type { DeleteFailureReason } from '../enums/deletion';

export interface DeleteSuccessEntry {
  diamond_id: string;
  participant_id: string | null;
  status: 'success';
  /** Ids of the descendants deleted together with it; empty when none. */
  descendants: string[];
}

/** DESIGN.md: failures carry a reason and a plain-language detail, and never descendants. */
export interface DeleteFailureEntry {
  diamond_id: string;
  /** The diamond's participant_id; null when the diamond is not found. */
  participant_id: string | null;
  status: 'failure';
  reason: DeleteFailureReason;
  detail: string;
  descendants: [];
}

export type DeleteResultEntry = DeleteSuccessEntry | DeleteFailureEntry;

/** Response of `POST {base_url}/bulk/diamonds/delete`: one entry per requested diamond. */
export interface BulkDeleteResponse {
  results: DeleteResultEntry[];
}
