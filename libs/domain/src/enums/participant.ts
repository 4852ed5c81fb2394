import { enumObject } from './enum-helpers';

/** One role per participant (DESIGN.md "Authentication and roles"). */
export const ROLE_VALUES = ['producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant'] as const;
export const Role = enumObject(ROLE_VALUES);
export type Role = (typeof ROLE_VALUES)[number];
