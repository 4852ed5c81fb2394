import { ApiProperty, ApiPropertyOptional, ApiSchema, ApiSchemaOptions } from '@nestjs/swagger';
import { CUSTODY_ACTION_VALUES, SHA256_HEX_PATTERN } from '../custody/actions';
import type { CustodyAction } from '../custody/actions';
import type { ConsistencyAnswer, CustodyAnswer, CustodyCheckpoint, CustodyEntry, CustodyEntryContext, ProvenCustodyEntry } from '../custody/entry';
import { entryHash, recordSha256 } from '../custody/hashing';
import { appendLeaves, consistencyRanges, Hash, hashRanges, inclusionRanges, leafHash, NodeKey, nodeKeyString, rootOf } from '../custody/merkle';
import { dateTimeField, diamondIdField } from './api-fields';

/**
 * The answers of search's custody routes (DESIGN.md "Provenance") as OpenAPI schemas. The contracts themselves are
 * the interfaces of custody/entry.ts; these classes implement them under the same schema names.
 */

const sha256Field = (description: string, example?: string) =>
  ({ type: 'string', pattern: SHA256_HEX_PATTERN.source, description, ...(example ? { example } : {}) }) as const;
const proofField = (description: string) => ({ type: 'array', items: { type: 'string', pattern: SHA256_HEX_PATTERN.source }, description }) as const;

@ApiSchema({ name: 'CustodyEntry', description: 'One custody log entry: exactly the object whose RFC 8785 (JCS) canonical JSON is hashed into `entry_hash`.' })
export class CustodyEntryRecord implements CustodyEntry {
  @ApiProperty(diamondIdField({ description: 'The diamond the change was made to.' }))
  diamond_id!: string;

  @ApiProperty({ type: 'string', description: "The diamond's `version_id` after the change (for `deleted`, a fresh id)." })
  version_id!: string;

  @ApiProperty({ type: 'string', enum: CUSTODY_ACTION_VALUES, enumName: 'CustodyAction', description: 'What the change was.' })
  action!: CustodyAction;

  @ApiProperty({ type: 'string', nullable: true, description: 'The participant whose call made the change; null for `record_updated`.' })
  actor_participant_id!: string | null;

  @ApiProperty(dateTimeField({ description: "The record's `system_timestamp` after the change." }))
  occurred_at!: string;

  @ApiProperty(sha256Field('Hex SHA-256 of the JCS canonical JSON of the DiamondV1 after the change (for `deleted`: of `{"diamond_id": ...}`).'))
  record_sha256!: string;

  @ApiProperty({
    ...sha256Field("The diamond's previous entry; for a child's first entry its parent's entry at the time; null for a root."),
    nullable: true,
  })
  prev_entry_hash!: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: SHA256_HEX_PATTERN.source },
    minItems: 1,
    description:
      "Only on the `registered` entry of a diamond registered against an accepted shipment: the sorted entry hashes of the latest entries of the shipment's diamonds at registration (their chains lead to the producer). Absent on every other entry.",
  })
  links?: string[];
}

@ApiSchema({
  name: 'CustodyEntryContext',
  description: 'What platform knew of a change beyond the entry (not covered by `entry_hash`: an annotation, never evidence).',
})
export class CustodyEntryContextRecord implements CustodyEntryContext {
  @ApiPropertyOptional({ type: 'string', description: 'The shipment of a `shipped`, `accepted` or `rejected` entry.' })
  shipment_id?: string;

  @ApiPropertyOptional({ type: 'string', description: 'shipped: the recipient; accepted/rejected: the sender.' })
  counterparty_participant_id?: string;
}

@ApiSchema({
  name: 'CustodyCheckpoint',
  description:
    'A signed tree head of the custody log: `jws` is a JWS compact (EdDSA, `kid` in its header, keys at `{base_url}/.well-known/custody-keys.json`) whose payload is the JCS of the four other members.',
})
export class CustodyCheckpointRecord implements CustodyCheckpoint {
  @ApiProperty({ type: 'string', description: 'The log (one per platform instance).' })
  log_id!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Leaves in the tree.' })
  tree_size!: number;

  @ApiProperty(sha256Field('RFC 9162 Merkle tree hash of the first `tree_size` leaves.'))
  root_hash!: string;

  @ApiProperty(dateTimeField({ description: 'When platform signed it.' }))
  timestamp!: string;

  @ApiProperty({ type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$', description: 'JWS compact serialization of the signed head.' })
  jws!: string;
}

@ApiSchema({ name: 'ProvenCustodyEntry', description: "An entry with its leaf index and its inclusion proof against the answer's checkpoint." })
export class ProvenCustodyEntryRecord implements ProvenCustodyEntry {
  @ApiProperty({ type: () => CustodyEntryRecord })
  entry!: CustodyEntryRecord;

  @ApiProperty(sha256Field('SHA-256 of the JCS canonical `entry`; the leaf is SHA-256(0x00 || entry_hash bytes).'))
  entry_hash!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Position of the leaf in the tree.' })
  leaf_index!: number;

  @ApiPropertyOptional({ type: () => CustodyEntryContextRecord })
  context?: CustodyEntryContextRecord;

  @ApiProperty(proofField("RFC 9162 2.1.3 inclusion proof (audit path) of the leaf in the checkpoint's tree, hex, leaf side first."))
  inclusion_proof!: string[];
}

@ApiSchema({
  name: 'CustodyAnswer',
  description: "A diamond's custody entries and the ancestor entries its chain links to, oldest first, each with its inclusion proof against `checkpoint`.",
})
export class CustodyAnswerRecord implements CustodyAnswer {
  @ApiProperty({ type: () => CustodyCheckpointRecord })
  checkpoint!: CustodyCheckpointRecord;

  @ApiProperty({ type: () => ProvenCustodyEntryRecord, isArray: true })
  entries!: ProvenCustodyEntryRecord[];
}

@ApiSchema({ name: 'ConsistencyAnswer', description: 'RFC 9162 2.1.4 consistency proof between two tree sizes.' })
export class ConsistencyAnswerRecord implements ConsistencyAnswer {
  @ApiProperty({ type: 'integer', minimum: 1 })
  from!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  to!: number;

  @ApiProperty(proofField('Hex hashes, RFC 9162 2.1.4.1 order (empty when from = to).'))
  proof!: string[];
}

const uriList = (description: string) => ({ type: 'array', items: { type: 'string', format: 'uri' }, description }) as const;

/**
 * An EPCIS event as the export writes it (GS1 EPCIS 2.0 JSON; GS1's JSON Schema is the full contract, and EPCIS
 * allows further namespaced extension members, hence `additionalProperties`).
 */
@ApiSchema({
  name: 'EPCISEvent',
  description: 'One EPCIS 2.0 event (ObjectEvent or TransformationEvent) with the platform extension members (`dtp:` prefix).',
  additionalProperties: true,
} as ApiSchemaOptions)
export class EpcisEventRecord {
  @ApiProperty({ type: 'string', enum: ['ObjectEvent', 'TransformationEvent'] })
  type!: 'ObjectEvent' | 'TransformationEvent';

  @ApiProperty(dateTimeField({ description: "The custody entry's `occurred_at`." }))
  eventTime!: string;

  @ApiProperty({ type: 'string', example: '+00:00' })
  eventTimeZoneOffset!: string;

  @ApiProperty({ type: 'string', format: 'uri', description: '`{base}/id/custody-entry/{entry_hash}`.' })
  eventID!: string;

  @ApiPropertyOptional({ type: 'string', enum: ['ADD', 'OBSERVE', 'DELETE'], description: 'ObjectEvent only.' })
  action?: 'ADD' | 'OBSERVE' | 'DELETE';

  @ApiPropertyOptional(uriList('ObjectEvent: the diamond (`{base}/id/diamond/{id}`).'))
  epcList?: string[];

  @ApiPropertyOptional(uriList('TransformationEvent: the parent.'))
  inputEPCList?: string[];

  @ApiPropertyOptional(uriList('TransformationEvent: the children search holds.'))
  outputEPCList?: string[];

  @ApiPropertyOptional({ type: 'string', format: 'uri', description: 'TransformationEvent: `{base}/id/transformation/{entry_hash}`.' })
  transformationID?: string;

  @ApiProperty({
    type: 'string',
    description: 'CBV 2.0 business step (`commissioning`, `shipping`, `receiving`, `inspecting`, `destroying`, `decommissioning`, `other`).',
  })
  bizStep!: string;

  @ApiPropertyOptional({ type: 'string', description: 'CBV 2.0 disposition.' })
  disposition?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', properties: { type: { type: 'string' }, source: { type: 'string', format: 'uri' } }, required: ['type', 'source'] },
    description: 'Transfers: the owning party before (`{base}/id/participant/{id}`).',
  })
  sourceList?: { type: string; source: string }[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', properties: { type: { type: 'string' }, destination: { type: 'string', format: 'uri' } }, required: ['type', 'destination'] },
    description: 'Transfers: the owning party after.',
  })
  destinationList?: { type: string; destination: string }[];

  @ApiProperty(sha256Field('The custody entry the event was made from.'))
  'dtp:entryHash'!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: "The entry's leaf index in the custody log." })
  'dtp:leafIndex'!: number;

  @ApiProperty({ type: 'string', enum: [...CUSTODY_ACTION_VALUES], description: "The custody entry's `action`." })
  'dtp:action'!: CustodyAction;

  @ApiProperty(sha256Field("The entry's `record_sha256`."))
  'dtp:recordSha256'!: string;

  @ApiPropertyOptional({ type: 'string', format: 'uri', description: 'The participant whose call made the change.' })
  'dtp:actor'?: string;

  @ApiPropertyOptional({ type: 'string', description: 'The shipment of a transfer.' })
  'dtp:shipmentId'?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'grading_selected: the active grading, its members as `dtp:<member>`.' })
  'dtp:grading'?: Record<string, unknown>;
}

@ApiSchema({ name: 'EPCISDocumentBody' })
export class EpcisBodyRecord {
  @ApiProperty({ type: () => EpcisEventRecord, isArray: true })
  eventList!: EpcisEventRecord[];
}

@ApiSchema({
  name: 'EPCISDocument',
  description: "A GS1 EPCIS 2.0 document (JSON-LD) of a diamond's journey: one event per custody entry of its chain.",
})
export class EpcisDocumentRecord {
  @ApiProperty({
    name: '@context',
    type: 'array',
    items: {
      oneOf: [
        { type: 'string', format: 'uri' },
        { type: 'object', additionalProperties: { type: 'string' } },
      ],
    },
    description: "The GS1 EPCIS 2.0 JSON-LD context, then `{dtp: <platform public base>/ns/epcis#}` (the platform's extension namespace).",
  })
  '@context'!: (string | Record<string, string>)[];

  @ApiProperty({ type: 'string', enum: ['EPCISDocument'] })
  type!: 'EPCISDocument';

  @ApiProperty({ type: 'string', enum: ['2.0'] })
  schemaVersion!: '2.0';

  @ApiProperty(dateTimeField())
  creationDate!: string;

  @ApiProperty({ type: () => EpcisBodyRecord })
  epcisBody!: EpcisBodyRecord;
}

// ---- Examples: a real three-entry log (registered, shipped, accepted), computed with the log's own functions. ----

const EXAMPLE_DIAMOND = '01j0k6v8m2x4c9d7f3h5n1p0qr';
const PRODUCER = '3b241101-e2bb-4255-8caf-4136c566a962';
const MANUFACTURER = 'c7a9e8d2-51f4-4d2b-9a3e-6f1c2b7d8e90';

function exampleLog() {
  const entries: { entry: CustodyEntry; context?: CustodyEntryContext }[] = [];
  const add = (action: CustodyAction, actor: string, at: string, context?: CustodyEntryContext) => {
    const prev = entries.length ? entryHash(entries[entries.length - 1].entry) : null;
    const entry: CustodyEntry = {
      diamond_id: EXAMPLE_DIAMOND,
      version_id: `01j0k6v8m2x4c9d7f3h5n1p0${String(entries.length).padStart(2, '0')}`,
      action,
      actor_participant_id: actor,
      occurred_at: at,
      record_sha256: recordSha256({ diamond_id: EXAMPLE_DIAMOND, step: entries.length }),
      prev_entry_hash: prev,
    };
    entries.push({ entry, context });
  };
  add('registered', PRODUCER, '2024-05-01T10:00:00.000Z');
  add('shipped', PRODUCER, '2024-05-02T09:30:00.000Z', { shipment_id: '01j0k7a1b2c3d4e5f6g7h8j9k0', counterparty_participant_id: MANUFACTURER });
  add('accepted', MANUFACTURER, '2024-05-03T14:15:00.000Z', { shipment_id: '01j0k7a1b2c3d4e5f6g7h8j9k0', counterparty_participant_id: PRODUCER });
  const hashes = entries.map((e) => entryHash(e.entry));
  const store = new Map<string, Hash>();
  const { nodes } = appendLeaves(
    0,
    hashes.map((h) => leafHash(Buffer.from(h, 'hex'))),
    () => undefined,
  );
  for (const n of nodes) store.set(nodeKeyString(n.key), n.hash);
  const lookup = (k: NodeKey) => store.get(nodeKeyString(k));
  const size = entries.length;
  const checkpoint: CustodyCheckpoint = {
    log_id: 'platform.example.com',
    tree_size: size,
    root_hash: rootOf(size, lookup).toString('hex'),
    timestamp: '2024-05-03T14:15:05.000Z',
    jws: 'eyJhbGciOiJFZERTQSIsImtpZCI6ImN1c3RvZHktMSJ9.eyJsb2dfaWQiOiJwbGF0Zm9ybS5leGFtcGxlLmNvbSJ9.c2lnbmF0dXJlLXNob3J0ZW5lZC1pbi10aGUtZXhhbXBsZQ',
  };
  const answer: CustodyAnswer = {
    checkpoint,
    entries: entries.map((e, i) => ({
      entry: e.entry,
      entry_hash: hashes[i],
      leaf_index: i,
      ...(e.context ? { context: e.context } : {}),
      inclusion_proof: hashRanges(inclusionRanges(i, size), lookup).map((h) => h.toString('hex')),
    })),
  };
  const consistency: ConsistencyAnswer = { from: 1, to: size, proof: hashRanges(consistencyRanges(1, size), lookup).map((h) => h.toString('hex')) };
  return { answer, consistency };
}

const LOG = exampleLog();
export const CUSTODY_ANSWER_EXAMPLE: CustodyAnswer = LOG.answer;
export const CUSTODY_CHECKPOINT_EXAMPLE: CustodyCheckpoint = LOG.answer.checkpoint;
export const CONSISTENCY_ANSWER_EXAMPLE: ConsistencyAnswer = LOG.consistency;
