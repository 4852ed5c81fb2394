// Spectral ruleset for openapi/*.json: Spectral's OpenAPI rules plus the OWASP API Security Top 10 2023 ruleset
// (@stoplight/spectral-owasp-ruleset), both "recommended", run by `npx spectral lint openapi/*.json` (this file is
// found by name) and by tools/test/openapi-linters.spec.ts, which fails on any finding at warning level or above.
//
// Everything below is a finding we accept, with the reason. Two kinds:
// 1. Rules narrowed to what they protect. The OWASP size rules (string-limit, string-restricted, integer-limit,
//    array-limit) ask for bounds on every schema, responses included. A bound on what the server sends protects
//    no server and tells a client nothing it can rely on (records grow new members; DESIGN.md "Input bounds"
//    bounds what a client sends). Here they apply to what a client sends: parameters and request bodies, where
//    every finding is a real gap. The rate-limit-header rule skips 401 (and auth's document), see below.
// 2. Single operations, by JSON pointer, each with its reason (`overrides` at the end).
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';

const OPERATIONS = '$.paths[*][get,put,post,delete,patch]';
const isType = (t) => `@ && (@.type == "${t}" || (@.type && @.type.constructor.name === "Array" && @.type.includes("${t}")))`;
/** Schemas of type `t` a client sends: in parameters and request bodies (through $refs: Spectral resolves them). */
const requestSchemas = (t) => [
  `${OPERATIONS}.parameters[*].schema[?(${isType(t)})]`,
  `${OPERATIONS}.parameters[*].schema..[?(${isType(t)})]`,
  `$.paths[*].parameters[*].schema..[?(${isType(t)})]`,
  `${OPERATIONS}.requestBody.content[*].schema..[?(${isType(t)})]`,
];
/** A rule of the OWASP ruleset, applied to the request side only. */
const onRequests = (name, type) => ({ ...owasp.rules[name], given: requestSchemas(type) });

export default {
  extends: [
    [oas, 'recommended'],
    [owasp, 'recommended'],
  ],
  rules: {
    'owasp:api4:2023-string-limit': onRequests('owasp:api4:2023-string-limit', 'string'),
    'owasp:api4:2023-integer-limit': onRequests('owasp:api4:2023-integer-limit', 'integer'),
    'owasp:api4:2023-array-limit': onRequests('owasp:api4:2023-array-limit', 'array'),
    // RateLimit-* headers are documented on every 2xx and 4xx answer of platform, search and gis (libs/service-kit
    // rate-limit.ts), except 401: the token check answers it before a request is counted against a client.
    'owasp:api4:2023-rate-limit': {
      ...owasp.rules['owasp:api4:2023-rate-limit'],
      given: `${OPERATIONS}.responses[?(@property.match(/^(2|4)/) && @property != "401")]`,
    },
    // The APIs are called by participants' servers, not by scripts on other origins: no CORS headers are sent, so
    // a browser refuses cross-origin reads, which is what we want. The one resource meant for any origin, the
    // custody key set, documents `Access-Control-Allow-Origin: *`.
    'owasp:api8:2023-define-cors-origin': 'off',
    // Free text (names, descriptions, comments, report and certificate numbers as labs write them) has no format
    // or pattern to declare: its length is bounded (string-limit stays on) and every service refuses NUL and lone
    // surrogates in any string (DESIGN.md "Input bounds"), which a JSON Schema pattern cannot say for surrogates.
    // Ids, hashes, enums and numbers as text do declare their pattern or enum.
    'owasp:api4:2023-string-restricted': 'off',
    // As in redocly.yaml: every operation has a summary; a description is optional.
    'operation-description': 'off',
  },
  overrides: [
    {
      // The committed documents name the local defaults (http://localhost:300x). A running service serves its
      // document at /docs/json with its configured public (https) address.
      files: ['openapi/*.json#/servers'],
      rules: { 'owasp:api8:2023-no-server-http': 'off' },
    },
    {
      // Client credentials (RFC 6749 4.4.3) issue no refresh token: a client asks for a new access token when
      // its token expires. The lifetime is short and bounded (TOKEN_TTL_SECONDS, at most 24 h).
      files: ['openapi/*.json#/components/securitySchemes/oauth2'],
      rules: { 'owasp:api2:2023-short-lived-access-tokens': 'off' },
    },
    {
      // auth's limits are its own (apps/auth/src/token/token-rate-limits.ts, the admin lockout): per address and
      // per client on the token endpoint, answered with 429 and Retry-After only; no RateLimit-* headers.
      files: ['openapi/auth.json'],
      rules: { 'owasp:api4:2023-rate-limit': 'off' },
    },
    {
      // The passport's look-up form has its own per-address limit (PASSPORT_LOOKUP_PER_IP), answered with 429
      // and Retry-After only.
      files: ['openapi/search.json#/paths/~1passport~1lookup/post/responses/429'],
      rules: { 'owasp:api4:2023-rate-limit': 'off' },
    },
    {
      // Public by design, so no 401: the key sets that verify tokens and custody proofs (anyone must be able to
      // verify), the token endpoint (it authenticates the client itself: 401 invalid_client is documented), and
      // the passport behind a share link (the link is the credential; DESIGN.md "Provenance").
      // The key sets take no input, so there is nothing to validate (no 400/422), and they are served from
      // memory, not rate limited (no 429).
      files: [
        'openapi/auth.json#/paths/~1.well-known~1jwks.json',
        'openapi/auth.json#/paths/~1.well-known~1oauth-authorization-server',
        'openapi/platform.json#/paths/~1.well-known~1custody-keys.json',
      ],
      rules: {
        'owasp:api2:2023-read-restricted': 'off',
        'owasp:api8:2023-define-error-responses-401': 'off',
        'owasp:api8:2023-define-error-validation': 'off',
        'owasp:api4:2023-rate-limit-responses-429': 'off',
      },
    },
    {
      files: ['openapi/auth.json#/paths/~1oauth~1token'],
      rules: { 'owasp:api2:2023-write-restricted': 'off' },
    },
    {
      // The passport pages, record, custody, proofs, photos, origin credential and evidence page behind a share link, the page's two assets, and
      // its public look-up form (it answers only with a redirect to a live share or the one 404 page).
      files: [
        'openapi/search.json#/paths/~1passport~1lookup',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D',
        'openapi/search.json#/paths/~1passport~1assets~1favicon.svg',
        'openapi/search.json#/paths/~1passport~1assets~1verify.js',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1custody',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1consistency',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1record',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1photos~1%7Bn%7D',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1credential',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1evidence',
      ],
      rules: {
        'owasp:api2:2023-read-restricted': 'off',
        'owasp:api2:2023-write-restricted': 'off',
        'owasp:api8:2023-define-error-responses-401': 'off',
      },
    },
    {
      // Operations whose only input is an id in the path: an id out of format answers 404 like an unknown one
      // (DESIGN.md "Input bounds": no existence oracle), so they have no 400/422 to document. The assets take
      // no input at all.
      files: [
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1custody',
        'openapi/search.json#/paths/~1passport~1assets~1favicon.svg',
        'openapi/search.json#/paths/~1passport~1assets~1verify.js',
        'openapi/gis.json#/paths/~1v2~1diamonds~1%7Bdiamond_id%7D~1validate~1historic',
        'openapi/gis.json#/paths/~1v2~1diamonds~1%7Bdiamond_id%7D~1validate~1%7Brequest_id%7D',
        'openapi/auth.json#/paths/~1admin~1participants~1%7Bparticipant_id%7D',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1record',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1photos~1%7Bn%7D',
        'openapi/search.json#/paths/~1v1~1custody~1checkpoints~1latest',
        'openapi/auth.json#/paths/~1admin~1participants~1%7Bparticipant_id%7D~1certificates/get',
        'openapi/platform.json#/paths/~1webhooks/get',
        'openapi/search.json#/paths/~1passport~1lookup/get',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1credential',
        'openapi/search.json#/paths/~1passport~1%7Bshare_id%7D~1evidence',
      ],
      rules: { 'owasp:api8:2023-define-error-validation': 'off' },
    },
    {
      // Strings a client sends without a maxLength of their own, each bounded another way:
      // - ISO 8601 date-time text (kept as sent, so no `format: date-time`, which would refuse the date-only and
      //   offset forms the spec allows): the server parses it (IsIsoDateTime) and the body limit bounds it;
      // - the token request's `audience` must equal one of the three configured service addresses (else 400
      //   invalid_target); the number as text in `carats` is checked as a number (<= 100,000, 3 places);
      // - the values of a tag or file map (`supplementary_files`, `entity_specific_tags`): the whole map is at
      //   most 16 KiB as JSON (DESIGN.md "Input bounds");
      // - the uploaded file itself (multipart `file`): bounded by the upload limit (413), not a string length.
      files: [
        'openapi/platform.json#/components/schemas/CreateRoughDiamond/properties/participant_timestamp',
        'openapi/platform.json#/components/schemas/CreatePolishedDiamond/properties/participant_timestamp',
        'openapi/platform.json#/components/schemas/SplitCut/properties/participant_timestamp',
        'openapi/platform.json#/components/schemas/SplitDiamond/properties/participant_timestamp',
        'openapi/platform.json#/components/schemas/DestroyDiamond/properties/participant_timestamp',
        'openapi/platform.json#/components/schemas/CreateShareRequest/properties/expires_at',
        'openapi/auth.json#/components/schemas/OnboardParticipantRequest/properties/integration_started_at',
        'openapi/platform.json#/components/schemas/UserGradedMeasurement/properties/graded_date',
        'openapi/gis.json#/components/schemas/GradingSubmission/properties/graded_date',
        'openapi/auth.json#/components/schemas/TokenRequest/properties/audience',
        'openapi/platform.json#/components/schemas/UserGradedMeasurement/properties/supplementary_files',
        'openapi/gis.json#/components/schemas/GradingSubmission/properties/supplementary_files',
        'openapi/gis.json#/components/schemas/GradingSubmission/properties/carats',
        'openapi/platform.json#/components/schemas/CreateRoughDiamond/properties/entity_specific_tags',
        'openapi/platform.json#/components/schemas/CreatePolishedDiamond/properties/entity_specific_tags',
        'openapi/platform.json#/paths/~1diamonds~1%7Bdiamond_id%7D~1files~1%7Bkind%7D/post/requestBody',
      ],
      rules: { 'owasp:api4:2023-string-limit': 'off' },
    },
  ],
};
