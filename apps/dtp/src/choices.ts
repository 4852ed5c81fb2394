import type { PlatformSchema } from '@dtp/sdk';

/**
 * The values `buildProgram` offers as choices and defaults, kept apart from the commands so that building the
 * program (and `dtp --help`) loads no command module: each command's code, `@dtp/domain`'s DTOs and
 * `@dtp/verify` load when that command runs.
 */
export const SHIPMENT_TYPES = ['rough', 'polished'] as const satisfies readonly PlatformSchema<'ShipmentType'>[];

/** What `dtp diamonds attach --kind` accepts: the platform's FileKind. */
export const FILE_KINDS = [
  'image',
  'video',
  'scan',
  'scan_report',
  'grading_certificate',
  'supplementary',
] as const satisfies readonly PlatformSchema<'FileKind'>[];

/** `dtp verify`'s state file, in the config directory unless --state names another. */
export const STATE_FILE_NAME = 'custody-checkpoints.json';
