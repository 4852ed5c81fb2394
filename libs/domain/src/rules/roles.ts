import { Role } from '../enums/participant';

/** Which service a token is for. Audience addresses are configuration; the kind is fixed per role. */
export const AUDIENCE_KIND_VALUES = ['platform', 'gis', 'search'] as const;
export type AudienceKind = (typeof AUDIENCE_KIND_VALUES)[number];

/** DESIGN.md "Authentication and roles": the one audience each role may ask a token for. */
export const ROLE_AUDIENCE_KIND: Readonly<Record<Role, AudienceKind>> = Object.freeze({
  producer: 'platform',
  manufacturer: 'platform',
  retailer: 'platform',
  grading_lab: 'gis',
  non_participant: 'search',
});

/** The audience kind a role may request (anything else -> `invalid_target`); undefined for unknown roles. */
export function audienceKindForRole(role: Role | string): AudienceKind | undefined {
  return Object.prototype.hasOwnProperty.call(ROLE_AUDIENCE_KIND, role) ? ROLE_AUDIENCE_KIND[role as Role] : undefined;
}

export function mayRequestAudience(role: Role | string, kind: AudienceKind): boolean {
  return audienceKindForRole(role) === kind;
}

/** Spec "Authentication" 7: rough registration is for producers and manufacturers only. */
export const ROUGH_REGISTRATION_ROLES: readonly Role[] = Object.freeze(['producer', 'manufacturer']);
/** Deletion is unavailable to retailers (platform roles other than retailer). */
export const DELETION_ROLES: readonly Role[] = Object.freeze(['producer', 'manufacturer']);
/** Polishing, splitting and destroying are manufacturer operations (DESIGN.md "Lifecycle"). */
export const MANUFACTURING_ROLES: readonly Role[] = Object.freeze(['manufacturer']);
/** Roles that hold diamonds and use the platform API. */
export const PLATFORM_ROLES: readonly Role[] = Object.freeze(['producer', 'manufacturer', 'retailer']);
