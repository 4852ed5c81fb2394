/**
 * Exit codes of `dtp` (docs/sdk.md "Exit codes"):
 * 0 done; 1 an API or runtime failure (the service refused, could not be reached, credentials refused);
 * 2 a usage or input error found before any request was sent (bad arguments, no credentials configured, invalid
 * CSV rows without --skip-invalid); 3 a bulk command that partly failed (some rows or deletions failed; the result
 * file says which); 130 interrupted (Ctrl-C: SIGINT) after the rows in flight were finished and written.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A usage or input error: exit 2, and no request has been sent. */
export class UsageError extends Error {
  override name = 'UsageError';
}
