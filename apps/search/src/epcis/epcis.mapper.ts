import type { CustodyAction, GradingDataView, IndexedCustodyEntry } from '@dtp/domain';

/** GS1's EPCIS 2.0 JSON-LD context (EPCIS 2.0 standard, section 10; nothing needs to fetch it). */
export const EPCIS_CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';

type Json = string | number | boolean | null | Json[] | { [member: string]: Json };

export interface EpcisSourceDest {
  type: 'owning_party';
  source?: string;
  destination?: string;
}

/** One EPCIS 2.0 event as the export writes it (members by the GS1 names; `dtp:` members are the extension). */
export interface EpcisEvent {
  type: 'ObjectEvent' | 'TransformationEvent';
  eventTime: string;
  eventTimeZoneOffset: string;
  eventID: string;
  action?: 'ADD' | 'OBSERVE' | 'DELETE';
  epcList?: string[];
  inputEPCList?: string[];
  outputEPCList?: string[];
  transformationID?: string;
  bizStep: string;
  disposition?: string;
  sourceList?: { type: 'owning_party'; source: string }[];
  destinationList?: { type: 'owning_party'; destination: string }[];
  'dtp:entryHash': string;
  'dtp:leafIndex': number;
  'dtp:action': CustodyAction;
  'dtp:recordSha256': string;
  'dtp:actor'?: string;
  'dtp:shipmentId'?: string;
  /** A registration against a shipment: the entry hashes it links to (the shipped diamonds' latest entries). */
  'dtp:links'?: string[];
  'dtp:grading'?: { [member: string]: Json };
}

export interface EpcisDocument {
  '@context': (string | { dtp: string })[];
  type: 'EPCISDocument';
  schemaVersion: '2.0';
  creationDate: string;
  epcisBody: { eventList: EpcisEvent[] };
}

export interface EpcisInput {
  /** The platform's public base address (PLATFORM_PUBLIC_URL); a trailing slash is ignored. */
  base: string;
  /** The diamond's chain, oldest first (the entries of its custody answer). */
  entries: readonly IndexedCustodyEntry[];
  /** For a `polished` or `split` entry: the diamonds whose first entry links to it (its outputs), by its entry_hash. */
  children?: ReadonlyMap<string, readonly string[]>;
  /**
   * The grading a `grading_selected` entry made active, by that entry's hash: search holds the current record
   * only, so the caller gives the active grading to the diamond's latest grading entry when it is a selection.
   */
  gradings?: ReadonlyMap<string, GradingDataView>;
  /** The document's `creationDate` (ISO 8601). */
  creationDate: string;
}

/** How each custody action reads in EPCIS / CBV 2.0 (DESIGN.md "Provenance"). */
const OBJECT_EVENTS: Record<Exclude<CustodyAction, 'polished' | 'split'>, { action: 'ADD' | 'OBSERVE' | 'DELETE'; bizStep: string; disposition?: string }> = {
  registered: { action: 'ADD', bizStep: 'commissioning', disposition: 'active' },
  shipped: { action: 'OBSERVE', bizStep: 'shipping', disposition: 'in_transit' },
  accepted: { action: 'OBSERVE', bizStep: 'receiving', disposition: 'in_progress' },
  // The recipient refused the stones: they go back to the sender (CBV `returned`).
  rejected: { action: 'OBSERVE', bizStep: 'receiving', disposition: 'returned' },
  destroyed: { action: 'DELETE', bizStep: 'destroying', disposition: 'destroyed' },
  // The record was removed from the platform: the id is retired.
  deleted: { action: 'DELETE', bizStep: 'decommissioning', disposition: 'inactive' },
  grading_selected: { action: 'OBSERVE', bizStep: 'inspecting' },
  grading_deselected: { action: 'OBSERVE', bizStep: 'inspecting' },
  file_attached: { action: 'OBSERVE', bizStep: 'other' },
  unlocked: { action: 'OBSERVE', bizStep: 'other' },
  record_updated: { action: 'OBSERVE', bizStep: 'other' },
};

/** The grading's members under the platform namespace (`dtp:colour`, ...), nulls left out. */
function gradingMembers(grading: GradingDataView): { [member: string]: Json } {
  const out: { [member: string]: Json } = {};
  for (const [key, value] of Object.entries(grading as unknown as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    out[`dtp:${key}`] = value as Json;
  }
  return out;
}

/**
 * The EPCIS 2.0 document of a diamond's journey: one event per custody entry of its chain, oldest first. Pure:
 * everything it needs comes in `input`. Ids are HTTP URIs under the platform's public base address:
 * `{base}/id/diamond/{id}`, `{base}/id/participant/{id}`, and `{base}/id/custody-entry/{entry_hash}` as eventID.
 */
export function toEpcisDocument(input: EpcisInput): EpcisDocument {
  const base = input.base.replace(/\/+$/, '');
  const diamond = (id: string) => `${base}/id/diamond/${encodeURIComponent(id)}`;
  const party = (id: string) => `${base}/id/participant/${encodeURIComponent(id)}`;
  const diamondOfEntry = new Map(input.entries.map((e) => [e.entry_hash, e.entry.diamond_id]));
  const eventList = input.entries.map((e): EpcisEvent => {
    const { entry, context } = e;
    const actor = entry.actor_participant_id;
    const counterparty = context?.counterparty_participant_id;
    const common = {
      eventTime: entry.occurred_at,
      eventTimeZoneOffset: '+00:00',
      eventID: `${base}/id/custody-entry/${e.entry_hash}`,
    };
    const extension = {
      'dtp:entryHash': e.entry_hash,
      'dtp:leafIndex': e.leaf_index,
      'dtp:action': entry.action,
      'dtp:recordSha256': entry.record_sha256,
      ...(actor ? { 'dtp:actor': party(actor) } : {}),
      ...(context?.shipment_id ? { 'dtp:shipmentId': context.shipment_id } : {}),
    };
    if (entry.action === 'polished' || entry.action === 'split') {
      const outputs = input.children?.get(e.entry_hash) ?? [];
      return {
        type: 'TransformationEvent',
        ...common,
        inputEPCList: [diamond(entry.diamond_id)],
        ...(outputs.length > 0 ? { outputEPCList: outputs.map(diamond) } : {}),
        // Names the transformation (EPCIS 2.0 7.4.6), so that one whose outputs search does not hold stays valid.
        transformationID: `${base}/id/transformation/${e.entry_hash}`,
        bizStep: 'commissioning',
        disposition: 'active',
        ...extension,
      };
    }
    if (entry.action === 'registered' && entry.links && entry.links.length > 0) {
      // Registered against an accepted shipment: the shipped rough diamonds (inputs) became this one (output), an
      // aggregation of the shipped box read as a transformation (EPCIS 2.0 7.4.6), so the journey reaches the producer.
      const inputs = [...new Set(entry.links.map((h) => diamondOfEntry.get(h)).filter((id): id is string => id !== undefined))];
      return {
        type: 'TransformationEvent',
        ...common,
        ...(inputs.length > 0 ? { inputEPCList: inputs.map(diamond) } : {}),
        outputEPCList: [diamond(entry.diamond_id)],
        transformationID: `${base}/id/transformation/${e.entry_hash}`,
        bizStep: 'commissioning',
        disposition: 'active',
        ...extension,
        'dtp:links': entry.links,
      };
    }
    const mapped = OBJECT_EVENTS[entry.action];
    // Who owned the stones before and after a transfer: the sender and the recipient.
    let from: string | undefined;
    let to: string | undefined;
    if (entry.action === 'shipped') [from, to] = [actor ?? undefined, counterparty];
    else if (entry.action === 'accepted') [from, to] = [counterparty, actor ?? undefined];
    else if (entry.action === 'rejected') [from, to] = [actor ?? undefined, counterparty];
    const grading = entry.action === 'grading_selected' ? input.gradings?.get(e.entry_hash) : undefined;
    return {
      type: 'ObjectEvent',
      ...common,
      action: mapped.action,
      epcList: [diamond(entry.diamond_id)],
      bizStep: mapped.bizStep,
      ...(mapped.disposition ? { disposition: mapped.disposition } : {}),
      ...(from ? { sourceList: [{ type: 'owning_party' as const, source: party(from) }] } : {}),
      ...(to ? { destinationList: [{ type: 'owning_party' as const, destination: party(to) }] } : {}),
      ...extension,
      ...(grading ? { 'dtp:grading': gradingMembers(grading) } : {}),
    };
  });
  return {
    '@context': [EPCIS_CONTEXT, { dtp: `${base}/ns/epcis#` }],
    type: 'EPCISDocument',
    schemaVersion: '2.0',
    creationDate: input.creationDate,
    epcisBody: { eventList },
  };
}
