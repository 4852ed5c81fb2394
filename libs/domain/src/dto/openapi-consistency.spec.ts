import 'reflect-metadata';
import { DECORATORS } from '@nestjs/swagger';
import type { ClassConstructor } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { EXAMPLE_IDS, VALIDATE_JSON_EXAMPLE, VERIFY_REQUEST_EXAMPLE } from '../records/examples';
import { CreateWebhookRequest, EventFeedQueryDto, UpdateWebhookRequest } from '../webhooks';
import { OnboardParticipantDto, ProvenanceInputDto, RegisterCertificateDto } from './auth.dto';
import { BulkDeleteEntryDto, BulkDeleteRequestDto } from './bulk-delete.dto';
import { CreateRoughDiamondDto } from './create-rough-diamond.dto';
import { ConsistencyQueryDto } from './custody.dto';
import { GradingSubmissionDto, ValidateJsonRequestDto, VerifyRequestDto } from './gis.dto';
import { CreatePolishedDiamondDto, DestroyDiamondDto, SplitCutDto, SplitDiamondDto } from './lifecycle.dto';
import { LookupQueryDto } from './lookup.dto';
import { PolishedSchemaDto } from './polished-schema.dto';
import { RoughSchemaDto } from './rough-schema.dto';
import { CreateShareRequest } from './share.dto';
import { failedPaths, REMOVE, withField } from './spec-helpers';
import { InboundShipmentQueryDto, TransferDecisionDto, TransferOutDto } from './transfer.dto';
import { UserGradedMeasurementDto } from './user-graded-measurement.dto';

/**
 * The OpenAPI description of each request DTO (@ApiProperty) says what its validators do (#14): the same members,
 * required exactly when the validators require them, nullable exactly when they take null, the same enum values and
 * string lengths. A member added to one side only, or a rule changed on one side only, fails here.
 */

interface Documented {
  required?: boolean;
  nullable?: boolean;
  oneOf?: { type?: unknown }[];
  enum?: unknown[];
  maxLength?: number;
  type?: unknown;
  format?: string;
}

const documentedNames = (cls: ClassConstructor<object>): string[] =>
  ((Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, cls.prototype) ?? []) as string[]).map((n) => n.replace(/^:/, ''));
const documented = (cls: ClassConstructor<object>, name: string): Documented =>
  Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, cls.prototype, name) as Documented;
/** `nullable: true`, or a `oneOf` with `{type: 'null'}` (a nullable reference to another schema). */
const isNullable = (d: Documented): boolean => d.nullable === true || (d.oneOf ?? []).some((s) => s.type === 'null');
const validatedNames = (cls: ClassConstructor<object>): string[] => [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
  ),
];

const ROUGH = {
  carats: '2.35',
  colour: 'G',
  display_colour: 'G',
  fancy_colour: 'Y',
  fancy_colour_intensity: 'FV',
  fancy_colour_overtone: 'greenish',
  fluorescence_colour: 'B',
  fluorescence_intensity: 'N',
  model: 'Sawable',
  quality: 'Gem',
  stress: 'light stress',
};
const POLISHED = {
  carats: '1.01',
  shape: 'Round',
  clarity: 'VS1',
  colour: 'G',
  cut_grade: 'EX',
  polish_quality: 'EX',
  symmetry: 'VG',
  fluorescence_colour: 'B',
  fluorescence_intensity: 'N',
  fancy_colour: 'Y',
  fancy_colour_intensity: 'FV',
  fancy_colour_overtone: 'none',
  display_colour: 'G',
  culet_condition: 'P',
  culet_size: 'N',
  girdle_condition: 'P',
  girdle_thickness_from: 'Medium',
  girdle_thickness_to: 'Thick',
  crown_angle: 34.5,
  crown_height: 15,
  depth: 3.98,
  depth_percent: 61.9,
  diameter_maximum: 6.45,
  diameter_minimum: 6.41,
  length: 6.45,
  pavillion_angle: 40.8,
  pavillion_percent: 43,
  table_percent: 57,
  width: 6.41,
};
const GRADED = {
  carats: '1.01',
  crown_angle: 34.5,
  crown_height: '15.0',
  depth: 4.1,
  depth_percent: '61.8',
  diameter_maximum: 6.52,
  diameter_minimum: '6.48',
  length: 6.52,
  pavillion_angle: '40.8',
  pavillion_percent: 43,
  table_percent: '57',
  width: 6.48,
  clarity: 'VS2',
  colour: 'G',
  culet_condition: 'P',
  culet_size: 'N',
  cut_grade: 'VG',
  fancy_colour: 'B',
  fancy_colour_intensity: 'D',
  fluorescence_colour: 'Y',
  fluorescence_intensity: 'M',
  girdle_condition: 'P',
  girdle_thickness_from: 'Medium',
  girdle_thickness_to: 'Thick',
  grading_lab: 'GIA',
  polish_quality: 'EX',
  shape: 'Round',
  symmetry: 'VG',
  validation_level: 'verification',
  display_colour: 'G',
  fancy_colour_overtone: 'none',
  grader_certificate_number: 'C-1',
  grader_clarity_characteristics: 'x',
  grader_colour: 'G',
  grader_report_comments: 'ok',
  grader_report_number: 'R-1',
  grader_report_type: 'full',
  grader_shape: 'Round',
  grading_certificate_description: 'd',
  grading_certificate_filename: 'cert.pdf',
  grading_certificate_hash: 'ab'.repeat(32),
  measurement_text: '6.52 x 6.48 x 4.10',
  graded_date: '2024-06-01T00:00:00Z',
  grader_inscription_numbers: ['GIA 1234567890'],
  supplementary_files: { report: 'ab'.repeat(32) },
};

/** Each request DTO with a valid body that has every member. */
const CASES: [string, ClassConstructor<object>, Record<string, unknown>][] = [
  [
    'CreateRoughDiamondDto',
    CreateRoughDiamondDto,
    {
      box_id: 'BOX-1',
      participant_id: 'STOCK-1',
      participant_timestamp: '2024-05-01T10:00:00Z',
      rough: ROUGH,
      assurance_level: 'declared',
      box_description: 'Sight 5',
      entity_specific_tags: { dit_session_id: 'd' },
      sight_no: 5,
      sight_year: 2024,
      supplementary_tags: { a: 1 },
    },
  ],
  ['RoughSchemaDto', RoughSchemaDto, ROUGH],
  ['PolishedSchemaDto', PolishedSchemaDto, POLISHED],
  [
    'CreatePolishedDiamondDto',
    CreatePolishedDiamondDto,
    {
      parent_diamond_id: EXAMPLE_IDS.roughDiamond,
      participant_id: 'CUT-1',
      participant_timestamp: '2024-06-01T08:30:00Z',
      polished: POLISHED,
      supplementary_tags: { a: 1 },
      entity_specific_tags: { dit_session_id: null },
    },
  ],
  ['SplitCutDto', SplitCutDto, { participant_id: 'A', participant_timestamp: '2024-06-01T08:30:00Z', rough: ROUGH }],
  [
    'SplitDiamondDto',
    SplitDiamondDto,
    {
      participant_timestamp: '2024-06-01T08:30:00Z',
      cuts: [
        { participant_id: 'A', rough: { carats: 1 } },
        { participant_id: 'B', rough: { carats: 1 } },
      ],
    },
  ],
  ['DestroyDiamondDto', DestroyDiamondDto, { participant_timestamp: '2024-06-01T08:30:00Z' }],
  ['TransferOutDto', TransferOutDto, { recipient_participant_id: EXAMPLE_IDS.manufacturer, name: 'S', shipment_type: 'rough', diamond_ids: ['a'] }],
  ['TransferDecisionDto', TransferDecisionDto, { diamond_ids: ['a', 'b'] }],
  ['InboundShipmentQueryDto', InboundShipmentQueryDto, { shipment_type: 'polished', page: 2, page_size: 100 }],
  ['BulkDeleteEntryDto', BulkDeleteEntryDto, { diamond_id: 'x', delete_descendants: true }],
  ['BulkDeleteRequestDto', BulkDeleteRequestDto, { diamonds: [{ diamond_id: 'x' }] }],
  ['UserGradedMeasurementDto', UserGradedMeasurementDto, GRADED],
  // Beyond the spec's operations: GIS, auth's admin API, webhooks, the event feed, lookup, shares, custody.
  ['GradingSubmissionDto', GradingSubmissionDto, GRADED],
  ['VerifyRequestDto', VerifyRequestDto, { ...VERIFY_REQUEST_EXAMPLE }],
  ['ValidateJsonRequestDto', ValidateJsonRequestDto, { ...VALIDATE_JSON_EXAMPLE }],
  ['ProvenanceInputDto', ProvenanceInputDto, { name: 'Karowe', type: 'mine', country_code: 'BW' }],
  [
    'OnboardParticipantDto',
    OnboardParticipantDto,
    { name: 'Karowe Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine' }, integration_started_at: '2021-05-01T00:00:00Z' },
  ],
  ['RegisterCertificateDto', RegisterCertificateDto, { certificate_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }],
  [
    'CreateWebhookRequest',
    CreateWebhookRequest,
    { url: 'https://erp.example.com/dtp/events', event_types: ['dtp.shipment.inbound', 'dtp.diamond.updated'], description: 'ERP' },
  ],
  [
    'UpdateWebhookRequest',
    UpdateWebhookRequest,
    { url: 'https://erp.example.com/dtp/events', event_types: ['dtp.diamond.updated'], enabled: false, description: 'ERP' },
  ],
  ['EventFeedQueryDto', EventFeedQueryDto, { after: 'c_00000000000000a3', limit: 100, types: 'dtp.shipment.inbound,dtp.diamond.updated' }],
  ['LookupQueryDto', LookupQueryDto, { grader_report_number: 'R-1', grading_lab: 'GIA', inscription: 'GIA 1', certificate_number: 'C-1' }],
  ['CreateShareRequest', CreateShareRequest, { expires_at: '2999-01-01T00:00:00Z' }],
  ['ConsistencyQueryDto', ConsistencyQueryDto, { from: 1, to: 3 }],
];

/** Query strings: no member takes null (a query string has none). */
const QUERIES = new Set<ClassConstructor<object>>([InboundShipmentQueryDto, EventFeedQueryDto, LookupQueryDto, ConsistencyQueryDto]);

describe.each(CASES)('%s: its OpenAPI schema says what its validators do', (_name, cls, full) => {
  const names = documentedNames(cls);
  const fails = (key: string, value: unknown) => failedPaths(cls, withField(full, key, value)).some((p) => p === key || p.startsWith(`${key}.`));

  it('documents exactly the members it validates, and the sample has every one of them', () => {
    expect([...names].sort()).toEqual(validatedNames(cls).sort());
    expect(Object.keys(full).sort()).toEqual([...names].sort());
    expect(failedPaths(cls, full)).toEqual([]);
  });

  it('documents as required exactly the members whose absence is refused', () => {
    const required = names.filter((n) => documented(cls, n).required !== false);
    expect(required.sort()).toEqual(names.filter((n) => fails(n, REMOVE)).sort());
  });

  it('documents as nullable exactly the members that take null (bodies; a query string has no null)', () => {
    if (QUERIES.has(cls)) {
      expect(names.filter((n) => isNullable(documented(cls, n)))).toEqual([]);
      return;
    }
    const nullable = names.filter((n) => isNullable(documented(cls, n)));
    expect(nullable.sort()).toEqual(names.filter((n) => !fails(n, null)).sort());
  });

  it('documents the enum values it accepts, and no others', () => {
    for (const n of names.filter((m) => Array.isArray(documented(cls, m).enum))) {
      for (const value of documented(cls, n).enum!) expect([n, value, fails(n, value)]).toEqual([n, value, false]);
      // validate-json's shape_group: any other text passes the body's checks and gets GIS's own 422 (type enum).
      if (cls === ValidateJsonRequestDto && n === 'shape_group') continue;
      expect([n, fails(n, 'not-a-value')]).toEqual([n, true]);
    }
  });

  it('documents the longest string it accepts', () => {
    for (const n of names.filter((m) => typeof documented(cls, m).maxLength === 'number' && documented(cls, m).type === 'string')) {
      const max = documented(cls, n).maxLength!;
      // A URL member's probe is a URL of that length.
      const text = (length: number) => (documented(cls, n).format === 'uri' ? 'https://erp.example.com/'.padEnd(length, 'x') : 'x'.repeat(length));
      expect([n, max, fails(n, text(max))]).toEqual([n, max, false]);
      expect([n, max + 1, fails(n, text(max + 1))]).toEqual([n, max + 1, true]);
    }
  });
});
