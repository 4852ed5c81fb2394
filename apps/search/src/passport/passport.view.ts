import type { CustodyAnswer, DiamondV1, GradingDataView, IndexedCustodyEntry } from '@dtp/domain';
import type { PublicParticipant } from './passport.repository';

/** One step of the journey, in words (public names only: never a diamond's or a participant's id). */
export interface JourneyStep {
  /** ISO 8601. */
  at: string;
  title: string;
  detail: string | null;
}

export interface PassportPhoto {
  /** Relative to the page. */
  src: string;
  alt: string;
}

/** Everything the page shows; nothing in it is an id. */
export interface PassportView {
  title: string;
  facts: [string, string][];
  origin: string | null;
  journey: JourneyStep[];
  /** True when the journey comes from the custody log, false when only from the records (no checkpoint yet). */
  journeyFromLog: boolean;
  grading: { lab: string | null; facts: [string, string][] } | null;
  gis: { status: string; text: string };
  photos: PassportPhoto[];
  /** Images the record has that cannot be shown publicly (none shown: the placeholder says so). */
  hiddenPhotos: number;
  shareUrl: string;
}

const ROLE_WORDS: Record<string, string> = {
  producer: 'producer',
  manufacturer: 'manufacturer',
  retailer: 'retailer',
  grading_lab: 'grading lab',
  non_participant: 'observer',
};

const GIS_WORDS: Record<string, string> = {
  eligible: 'Eligible for lab grading: the scan report was checked by the grading integration.',
  missing_report: 'Not verified: no scan report was provided.',
  invalid_report: 'Not verified: the scan report could not be read.',
  not_processable: 'Not verified: the scan report could not be processed.',
  missing_data: 'Not verified: the scan report lacks required measurements.',
  shape_not_supported: 'Not verified: this shape is not supported by the grading integration.',
};

/** "Example Mining Co (producer)", or a neutral phrase for a participant search has not heard of. */
export function who(participants: Map<string, PublicParticipant>, id: string | null | undefined): string {
  const p = id ? participants.get(id) : undefined;
  if (!p) return 'a registered participant';
  const role = ROLE_WORDS[p.role];
  return role ? `${p.name} (${role})` : p.name;
}

function countryName(code: string | null | undefined): string | null {
  if (!code) return null;
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** "Example Mining Co, a mine in Botswana" from a record's provenance. */
export function originOf(record: DiamondV1): string | null {
  const p = record.provenance;
  if (!p?.provenance_name) return null;
  const country = p.is_country_code_available ? countryName(p.country_code) : null;
  const type = p.provenance_type ? `${/^[aeiou]/i.test(p.provenance_type) ? 'an' : 'a'} ${p.provenance_type}` : null;
  return [p.provenance_name, type && country ? `${type} in ${country}` : (type ?? (country ? `in ${country}` : null))].filter(Boolean).join(', ');
}

function activeGrading(record: DiamondV1): GradingDataView | null {
  return record.grading?.[0] ?? null;
}

function gradingFacts(g: GradingDataView): [string, string][] {
  const facts: [string, string | null | undefined][] = [
    ['Carat weight', g.carats === undefined || g.carats === null ? null : `${g.carats} ct`],
    ['Shape', g.shape],
    ['Colour', g.colour ?? g.display_colour],
    ['Clarity', g.clarity],
    ['Cut', g.cut_grade],
    ['Polish', g.polish_quality],
    ['Symmetry', g.symmetry],
    ['Fluorescence', g.fluorescence_intensity],
    ['Graded on', g.graded_date ? g.graded_date.slice(0, 10) : null],
  ];
  return facts.filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '').map(([k, v]) => [k, String(v)]);
}

function stoneFacts(record: DiamondV1): [string, string][] {
  const polished = record.polished as Record<string, unknown>;
  const rough = record.rough as Record<string, unknown>;
  const carats = (polished?.carats ?? rough?.carats) as string | undefined;
  const facts: [string, string | undefined][] = [
    [
      'Stage',
      record.lifecycle_state === 'rough'
        ? 'Rough diamond'
        : record.lifecycle_state === 'polished'
          ? 'Polished diamond'
          : String(record.lifecycle_state).replace(/_/g, ' '),
    ],
    ['Carat weight', carats !== undefined ? `${carats} ct` : undefined],
    ['Shape', polished?.shape as string | undefined],
    ['Colour', (polished?.colour ?? rough?.colour) as string | undefined],
    ['Clarity', polished?.clarity as string | undefined],
  ];
  return facts.filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '');
}

/**
 * The journey from the custody log: one step per entry that means something to a reader (the log's own
 * bookkeeping, a child's first entry that repeats its parent's polishing, is left out). `records` maps a diamond id
 * to its record (the diamond and its ancestors); nothing of an id reaches the text.
 */
export function journeyFromEntries(
  entries: IndexedCustodyEntry[],
  records: Map<string, DiamondV1>,
  participants: Map<string, PublicParticipant>,
): JourneyStep[] {
  const steps: JourneyStep[] = [];
  for (const { entry, context } of entries) {
    const actor = who(participants, entry.actor_participant_id);
    const other = context?.counterparty_participant_id ? who(participants, context.counterparty_participant_id) : null;
    const record = records.get(entry.diamond_id);
    const at = entry.occurred_at;
    switch (entry.action) {
      case 'registered': {
        if (record?.diamond_parent_id) break; // a cut stone's first entry: its parent's polishing/splitting says it
        if (entry.links && entry.links.length > 0) {
          steps.push({
            at,
            title: 'Registered from a received shipment',
            detail: `Registered by ${actor} from the rough diamonds received in the shipment above.`,
          });
          break;
        }
        const origin = record ? originOf(record) : null;
        steps.push({ at, title: 'Mined and registered', detail: `Registered by ${actor}${origin ? `. Origin: ${origin}` : ''}.` });
        break;
      }
      case 'file_attached':
        steps.push({ at, title: 'Document added', detail: `A file (scan, report, image or certificate) was attached by ${actor}.` });
        break;
      case 'unlocked':
        steps.push({ at, title: 'Record unlocked', detail: `${capital(actor)} made the record open for the next steps.` });
        break;
      case 'shipped':
        steps.push({ at, title: 'Shipped', detail: `Sent by ${actor}${other ? ` to ${other}` : ''}.` });
        break;
      case 'accepted':
        steps.push({ at, title: 'Received', detail: `Accepted by ${actor}${other ? ` from ${other}` : ''}.` });
        break;
      case 'rejected':
        steps.push({ at, title: 'Returned', detail: `Refused by ${actor}${other ? ` and returned to ${other}` : ''}.` });
        break;
      case 'polished':
        steps.push({ at, title: 'Cut and polished', detail: `Cut and polished by ${actor}.` });
        break;
      case 'split':
        steps.push({ at, title: 'Split', detail: `Split into several stones by ${actor}.` });
        break;
      case 'destroyed':
        steps.push({ at, title: 'Destroyed', detail: `Recorded as destroyed by ${actor}.` });
        break;
      case 'grading_selected': {
        const lab = record ? activeGrading(record)?.grading_lab : null;
        steps.push({ at, title: 'Graded', detail: `${lab ? `Grading by ${lab}` : 'A grading'} chosen as the diamond's grading by ${actor}.` });
        break;
      }
      case 'grading_deselected':
        steps.push({ at, title: 'Grading withdrawn', detail: `The shown grading was withdrawn by ${actor}.` });
        break;
      case 'deleted':
        steps.push({ at, title: 'Removed', detail: `The record was deleted by ${actor}.` });
        break;
      case 'record_updated':
        steps.push({ at, title: 'Record updated', detail: 'The platform updated the record (confirmed origin or a lab check).' });
        break;
    }
  }
  return steps;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A journey from the records alone, while the log has no checkpoint covering them yet. */
export function journeyFromRecords(chain: DiamondV1[], participants: Map<string, PublicParticipant>): JourneyStep[] {
  const steps: JourneyStep[] = [];
  chain.forEach((r, i) => {
    if (i === 0) {
      const origin = originOf(r);
      steps.push({
        at: r.participant_timestamp,
        title: 'Mined and registered',
        detail: `Registered by ${who(participants, r.producer_uuid)}${origin ? `. Origin: ${origin}` : ''}.`,
      });
    } else {
      steps.push({ at: r.participant_timestamp, title: 'Cut and polished', detail: 'Cut and polished from the stone above.' });
    }
  });
  const last = chain[chain.length - 1];
  const g = last ? activeGrading(last) : null;
  if (g) steps.push({ at: g.graded_date ?? last.system_timestamp, title: 'Graded', detail: g.grading_lab ? `Graded by ${g.grading_lab}.` : 'Graded.' });
  return steps;
}

export interface ViewInput {
  record: DiamondV1;
  /** Nearest first. */
  ancestors: DiamondV1[];
  custody: CustodyAnswer | null;
  /** The records of the other diamonds the custody chain reaches through links (the shipped rough diamonds). */
  linked?: DiamondV1[];
  participants: Map<string, PublicParticipant>;
  photos: PassportPhoto[];
  hiddenPhotos: number;
  shareUrl: string;
}

export function passportView(input: ViewInput): PassportView {
  const { record, ancestors, custody, participants } = input;
  const chain = [...ancestors].reverse().concat(record);
  const records = new Map([...(input.linked ?? []), ...chain].map((r) => [r.diamond_id, r]));
  const g = activeGrading(record);
  const fromLog = custody !== null && custody.entries.length > 0;
  const gis = record.gis_status ?? null;
  return {
    title: record.lifecycle_state === 'rough' ? 'Rough diamond passport' : 'Diamond passport',
    facts: stoneFacts(record),
    origin: originOf(chain[0]),
    journey: fromLog ? journeyFromEntries(custody.entries, records, participants) : journeyFromRecords(chain, participants),
    journeyFromLog: fromLog,
    grading: g ? { lab: g.grading_lab ?? null, facts: gradingFacts(g) } : null,
    gis: gis
      ? { status: gis === 'eligible' ? 'Verified' : 'Not verified', text: GIS_WORDS[gis] ?? gis }
      : { status: 'Not checked', text: 'The grading integration has not checked this diamond.' },
    photos: input.photos,
    hiddenPhotos: input.hiddenPhotos,
    shareUrl: input.shareUrl,
  };
}

/** The participants a page names: the actors and counterparties of the entries, the producers of the chain. */
export function participantIdsOf(chain: DiamondV1[], custody: CustodyAnswer | null): string[] {
  const ids = chain.map((r) => r.producer_uuid);
  for (const e of custody?.entries ?? []) {
    if (e.entry.actor_participant_id) ids.push(e.entry.actor_participant_id);
    if (e.context?.counterparty_participant_id) ids.push(e.context.counterparty_participant_id);
  }
  return ids;
}
