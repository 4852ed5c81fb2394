import { enumObject } from './enum-helpers';

/** `{kind}` of `POST /diamonds/{diamond_id}/files/{kind}` (DESIGN.md "Files"). */
export const FILE_KIND_VALUES = ['image', 'video', 'scan', 'scan_report', 'grading_certificate', 'supplementary'] as const;
export const FileKind = enumObject(FILE_KIND_VALUES);
export type FileKind = (typeof FILE_KIND_VALUES)[number];
