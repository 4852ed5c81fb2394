import type { ValidationDetailItem } from '../dto/validation-detail';

/** 422 body (DESIGN.md): `{"detail": [{loc, msg, type}]}`; create-rough failures also carry `message`. */
export interface ValidationErrorResponse {
  detail: ValidationDetailItem[];
  message?: string;
}

/** Error body with a plain message, and a machine-readable reason where one exists. */
export interface MessageErrorResponse {
  message: string;
  reason?: string;
}

/** Uniqueness failure on create rough: 409. */
export interface DiamondNotUniqueResponse extends MessageErrorResponse {
  reason: 'diamond_not_unique';
}
