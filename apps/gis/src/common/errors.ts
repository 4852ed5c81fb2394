import { DomainError, GoneError, IneligibleResponse, InvalidError, NotFoundError, PreconditionFailedError } from '@dtp/domain';

/**
 * GIS's domain errors (the spec's "Grading integration" answers). Services throw these; the kit's exception
 * filter maps their kind to the status and sends their body verbatim: GIS answers `{detail}` for an unknown
 * resource and `{reason, detail}` for a refused diamond or a missing prerequisite.
 */

export const DIAMOND_NOT_FOUND = 'diamond not found';
export const REQUEST_NOT_FOUND = 'validation request not found';
/** Seconds a lab is asked to wait before retrying when a diamond's scan report cannot be read yet. */
export const SCAN_REPORT_RETRY_AFTER_SECONDS = 5;

/** 404 `{detail: "diamond not found"}`. */
export class DiamondNotFoundError extends NotFoundError {
  constructor() {
    super({ detail: DIAMOND_NOT_FOUND });
  }
}

/** 404 `{detail: "validation request not found"}`: unknown, another lab's or another diamond's request. */
export class ValidationRequestNotFoundError extends NotFoundError {
  constructor() {
    super({ detail: REQUEST_NOT_FOUND });
  }
}

/** 410 `{reason: "diamond_has_been_deleted", detail: null}`. */
export class DiamondDeletedError extends GoneError {
  constructor() {
    super({ reason: 'diamond_has_been_deleted', detail: null } satisfies IneligibleResponse);
  }
}

/** 409 `{reason, detail}`: the diamond is not eligible for lab work (or, for validate, its shape is not supported). */
export class DiamondIneligibleError extends DomainError {
  constructor(
    readonly reason: IneligibleResponse['reason'],
    detail: IneligibleResponse['detail'],
  ) {
    super('conflict', { reason, detail } satisfies IneligibleResponse);
  }
}

/** 503 `{detail}` with Retry-After: the diamond's scan report is attached but cannot be read from the file store yet. */
export class ScanReportUnavailableError extends DomainError {
  constructor(readonly why: string) {
    super(
      'unavailable',
      { detail: "the diamond's scan report cannot be read from the file store yet; retry later" },
      { retryAfterSeconds: SCAN_REPORT_RETRY_AFTER_SECONDS },
    );
  }
}

/** 412 `{reason, detail}`: the lab has not done the step this one needs (verify before validate, validate before grading). */
export class PrerequisiteMissingError extends PreconditionFailedError {
  constructor(reason: 'no_successful_verify' | 'no_verified_validation', detail: string) {
    super({ reason, detail });
  }
}

/** 422 `{detail: [{loc, msg, type}], message}` for one member of the body that its DTO cannot check alone. */
export class InvalidBodyMemberError extends InvalidError {
  constructor(member: string, msg: string, type: string) {
    super({ detail: [{ loc: ['body', member], msg, type }], message: `${member}: ${msg}` });
  }
}
