/**
 * Realistic examples of the records, for the OpenAPI documents (#14): one story told through the operations. A
 * producer registers a rough diamond (ROUGH_DIAMOND_EXAMPLE) and ships it; the manufacturer accepts, polishes it
 * (POLISHED_DIAMOND_EXAMPLE, with a scan report, an image and an active lab grading) and so on. Typed with the
 * record classes, so they keep up with the records.
 */
import type { DeleteFailureEntry, DeleteSuccessEntry } from './delete-result';
import type { DiamondHistory, DiamondV1 } from './diamond-v1';
import type { FileRef, GradingCertificateRef, ImageRef } from './file-refs';
import type { ValidateJsonRequestDto, VerifyRequestDto } from '../dto/gis.dto';
import type { GradingDataView } from './grading-data-view';
import type { InboundShipment, ShipmentList } from './shipment';

const PRODUCER = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const MANUFACTURER = '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d';
const ROUGH_ID = '01hy7k3m5n7p9q1r3s5t7v9w1x';
const POLISHED_ID = '01hz2a4b6c8d0e2f4g6h8j0k2m';
const SHIPMENT_ID = '01hy9b3c5d7e9f1g3h5j7k9m1n';
const SCAN_REPORT_HASH = '5d41402abc4b2a76b9719d911017c592aa9b6b7c6e5d4c3b2a1908f7e6d5c4b3';
const IMAGE_HASH = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';

/** A rough diamond as registration answers it (a producer's, locked, in the producer's box). */
export const ROUGH_DIAMOND_EXAMPLE: DiamondV1 = {
  diamond_id: ROUGH_ID,
  diamond_parent_id: null,
  id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  parent_id: null,
  version_id: '01hy7k3m5n7p9q1r3s5t7v9w1y',
  is_current: true,
  schema_version: '1',
  current_stage: 'rough',
  lifecycle_state: 'rough',
  possession_state: 'held',
  unlock_status: 'locked',
  gis_status: null,
  assurance_level: 'assured',
  participant_id: 'STOCK-000123',
  participant_parent_id: null,
  participant_timestamp: '2024-05-01T10:00:00Z',
  system_timestamp: '2024-05-01T10:00:01.234Z',
  archived_at: null,
  box_id: 'BOX-2024-0042',
  box_description: 'Sight 5, 2024',
  sight_no: 5,
  sight_year: 2024,
  entity_specific_tags: { dit_session_id: 'dit-2024-05-01-0007' },
  supplementary_tags: null,
  producer_uuid: PRODUCER,
  provenance: {
    provenance_name: 'Example Mining Co',
    provenance_type: 'mine',
    is_locked: true,
    is_country_code_available: true,
    country_code: 'BW',
  },
  rough: { carats: '2.35', colour: 'G', model: 'Sawable', quality: 'Gem', stress: 'light stress' },
  polished: {},
  rough_check: false,
  rough_objective_verification_results: [],
  polished_objective_verification_results: [],
  grading: null,
  data_requests: [],
  three_d_plan_available: false,
  verification_status: 'Verified',
  verification_description: 'verified record',
  verification_status_modified_at: null,
};

/** A scan report, as upload answers it and as the record lists it. */
export const SCAN_REPORT_REF_EXAMPLE: FileRef = {
  hash: SCAN_REPORT_HASH,
  filename: 'scan-report.xml',
  description: 'Scan report of the polished stone',
  content_type: 'application/xml',
  size: 20480,
  uploaded_at: '2024-06-02T09:15:00.000Z',
};

export const IMAGE_REF_EXAMPLE: ImageRef = {
  hash: IMAGE_HASH,
  filename: 'face-up.jpg',
  description: 'Face-up photograph',
  content_type: 'image/jpeg',
  size: 734003,
  uploaded_at: '2024-06-02T09:16:00.000Z',
  image_type: 'face_up',
};

export const GRADING_CERTIFICATE_REF_EXAMPLE: GradingCertificateRef = {
  hash: '8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92',
  filename: 'certificate.pdf',
  description: 'Grading certificate',
};

/** A lab's grading (`source: gis`), active. */
export const GRADING_EXAMPLE: GradingDataView = {
  id: '7d9f0e7a-1c55-4c0e-9a43-2f8f6f1b5b11',
  is_active: true,
  is_selectable: true,
  source: 'gis',
  grading_lab: 'GIA',
  grader_certificate_number: '2141438172',
  grader_report_number: 'R-2141438172',
  graded_date: '2024-06-10T00:00:00Z',
  carats: '1.01',
  shape: 'Round',
  colour: 'G',
  clarity: 'VS1',
  cut_grade: 'EX',
  polish_quality: 'EX',
  symmetry: 'VG',
  fluorescence_intensity: 'N',
  depth_percent: '61.9',
  table_percent: '57',
  length: '6.41',
  width: '6.45',
  depth: '3.98',
  grader_inscription_numbers: ['GIA 2141438172'],
};

/** A graded measurement the holder added itself (`source: user`): inactive and selectable. */
export const USER_GRADING_EXAMPLE: GradingDataView = {
  id: '0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19',
  is_active: false,
  is_selectable: true,
  source: 'user',
  carats: '1.01',
  shape: 'Round',
  colour: 'H',
  clarity: 'VS2',
  graded_date: '2024-06-03T00:00:00Z',
  measurement_text: '6.40 - 6.46 x 3.97 mm',
};

/** The polished diamond cut from ROUGH_DIAMOND_EXAMPLE, held by the manufacturer, with files and a lab grading. */
export const POLISHED_DIAMOND_EXAMPLE: DiamondV1 = {
  ...ROUGH_DIAMOND_EXAMPLE,
  diamond_id: POLISHED_ID,
  diamond_parent_id: ROUGH_ID,
  id: 'd2e3f4a5-b6c7-4d8e-9fa0-1b2c3d4e5f60',
  parent_id: ROUGH_DIAMOND_EXAMPLE.id,
  version_id: '01hz9c1d3e5f7g9h1j3k5m7n9p',
  current_stage: 'polished',
  lifecycle_state: 'polished',
  unlock_status: 'unlocked',
  gis_status: 'eligible',
  participant_id: 'CUT-2024-0815',
  participant_parent_id: 'STOCK-000123',
  participant_timestamp: '2024-06-01T08:30:00Z',
  system_timestamp: '2024-06-12T14:20:05.120Z',
  entity_specific_tags: null,
  polished: {
    carats: '1.01',
    shape: 'Round',
    clarity: 'VS1',
    colour: 'G',
    cut_grade: 'EX',
    polish_quality: 'EX',
    symmetry: 'VG',
    fluorescence_intensity: 'N',
    depth_percent: 61.9,
    table_percent: 57,
    images: [IMAGE_REF_EXAMPLE],
    scan_reports: [SCAN_REPORT_REF_EXAMPLE],
  },
  grading: [GRADING_EXAMPLE],
};

/** Search's history of POLISHED_DIAMOND_EXAMPLE: its parent, the rough it was cut from. */
export const DIAMOND_HISTORY_EXAMPLE: DiamondHistory = {
  diamond_id: POLISHED_ID,
  ancestors: [{ ...ROUGH_DIAMOND_EXAMPLE, lifecycle_state: 'polished', unlock_status: 'unlocked', version_id: '01hz2a4b6c8d0e2f4g6h8j0k2n' }],
};

/** A rough shipment from the producer to the manufacturer, as transfer out answers it. */
export const ROUGH_SHIPMENT_EXAMPLE: InboundShipment = {
  id: SHIPMENT_ID,
  name: 'May rough to cutting',
  sender: 'https://platform.example.com',
  shipment_type: 'rough',
  status: 'action_required',
  total_diamonds: 1,
  created_at: '2024-05-06T09:00+0000',
  diamonds: [
    {
      created_at: '2024-05-06T09:00+0000',
      updated_at: '2024-05-06T09:00+0000',
      diamond_id: ROUGH_ID,
      lifecycle_state: 'rough',
      transfer_state: 'transfer_in_pending',
      rough: {
        carats: '2.35',
        colour: 'G',
        model: 'Sawable',
        quality: 'Gem',
        stress: 'light stress',
        box_id: 'BOX-2024-0042',
        sight_year: 2024,
        sight_number: 5,
      },
      polished: null,
    },
  ],
};

/** The same shipment once the manufacturer accepted it. */
export const ACCEPTED_SHIPMENT_EXAMPLE: InboundShipment = {
  ...ROUGH_SHIPMENT_EXAMPLE,
  status: 'completed',
  diamonds: [{ ...ROUGH_SHIPMENT_EXAMPLE.diamonds[0], updated_at: '2024-05-07T11:30+0000', transfer_state: 'transfer_in_confirmed' }],
};

export const SHIPMENT_LIST_EXAMPLE: ShipmentList = {
  next: null,
  previous: null,
  page: 1,
  pages: 1,
  total: 1,
  results: [ROUGH_SHIPMENT_EXAMPLE],
};

export const DELETE_SUCCESS_EXAMPLE: DeleteSuccessEntry = {
  diamond_id: '01hy7k3m5n7p9q1r3s5t7v9w2a',
  participant_id: 'STOCK-000124',
  status: 'success',
  descendants: [],
};

export const DELETE_FAILURE_EXAMPLE: DeleteFailureEntry = {
  diamond_id: ROUGH_ID,
  participant_id: 'STOCK-000123',
  status: 'failure',
  reason: 'unlocked',
  detail: 'the diamond is unlocked; unlocked diamonds cannot be deleted',
  descendants: [],
};

/** Ids the examples share (request bodies name the same diamonds the answers show). */
export const EXAMPLE_IDS = {
  producer: PRODUCER,
  manufacturer: MANUFACTURER,
  roughDiamond: ROUGH_ID,
  polishedDiamond: POLISHED_ID,
  shipment: SHIPMENT_ID,
  scanReportHash: SCAN_REPORT_HASH,
  imageHash: IMAGE_HASH,
} as const;

/** A lab's verify request for the polished diamond: the carat weight and shape group it measured. */
export const VERIFY_REQUEST_EXAMPLE: VerifyRequestDto = { carat_weight: 1.02, shape_group: 'Round' };

/** A lab's measurements of a round diamond, with both angles (validate-json): match the scan report of the examples. */
export const VALIDATE_JSON_EXAMPLE: ValidateJsonRequestDto = {
  shape_group: 'Round',
  estimated_weight_crt: 1.02,
  girdle_avg_mm: 7.55,
  table_avg_mm: 3.71,
  total_depth_mm: 4.2,
  crown_angle_deg: 34.5,
  pavillion_angle_deg: 40.8,
};
