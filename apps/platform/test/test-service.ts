import type { Caller } from '@dtp/auth-guard';
import { ConflictError, DomainError, Role } from '@dtp/domain';
import { PG_UNIQUE_VIOLATION, Sql, Tx, UnitOfWork } from '@dtp/database';
import type { OutboxEvent } from '@dtp/events';
import type { EntityManager } from 'typeorm';
import { PlatformConfig } from '../src/config';
import type { NewCustodyEntry } from '../src/custody/custody-entry';
import { BoxResolver, ResolvedBox } from '../src/diamonds/box-resolver';
import { DiamondChanges } from '../src/diamonds/diamond-changes';
import type { DiamondRow } from '../src/diamonds/diamond.entity';
import type { DiamondsRepository, NewDiamondWrite } from '../src/diamonds/diamonds.repository';
import type { GradedMeasurementRow } from '../src/diamonds/graded-measurement.entity';
import type { GradedMeasurementsRepository } from '../src/diamonds/graded-measurements.repository';
import type { ParticipantDirectory } from '../src/participants/participant-directory';
import type { ParticipantRow } from '../src/participants/participant.entity';
import type { ParticipantsRepository } from '../src/participants/participants.repository';
import type { RegistrationWriter } from '../src/registration/registration-writer';
import { RegistrationService } from '../src/registration/registration.service';
import type { ShipmentDiamondRow, ShipmentRow } from '../src/shipments/shipment.entity';
import type { ShipmentsRepository } from '../src/shipments/shipments.repository';
import { TransferOutService } from '../src/shipments/transfer-out.service';

/*
 * The service test tier (after immich's newTestService): each service built as Nest would build it, but on
 * in-memory repositories, so its rules (refusals and their error codes, what a change writes) are tested in
 * milliseconds with no database. Every fake keeps only what the services read back; a unit of work snapshots
 * every store and restores it when its function throws (a rollback). The integration tier (test/*.spec.ts,
 * real PostgreSQL) proves the SQL itself.
 */

/** A store whose state a failed unit of work puts back. */
interface Transactional {
  snapshot(): () => void;
}

const clone = <T>(v: T): T => structuredClone(v);

/** A statement the services sent through Sql (advisory locks, writeOutbox): recorded, answered with nothing. */
export interface Statement {
  text: string;
  params: unknown[];
}

class FakeTx implements Tx {
  readonly hooks: (() => void)[] = [];
  constructor(private readonly log: Statement[]) {}
  get manager(): EntityManager {
    return { query: (text: string, params: unknown[] = []) => this.query(text, params) } as unknown as EntityManager;
  }
  afterCommit(fn: () => void): void {
    this.hooks.push(fn);
  }
  async rows<T>(text: string, params: unknown[] = []): Promise<T[]> {
    this.log.push({ text, params });
    return [];
  }
  async exec(text: string, params: unknown[] = []): Promise<number> {
    this.log.push({ text, params });
    return 0;
  }
  async query(text: string, params: unknown[] = []): Promise<unknown> {
    this.log.push({ text, params });
    return [];
  }
}

/** UnitOfWork on the fakes: `run` commits (after-commit hooks run) or, when its function throws, rolls every store back. */
export class FakeUnitOfWork {
  readonly statements: Statement[] = [];
  readonly inSharedTransaction = false;
  readonly sql: Sql = new FakeTx(this.statements);
  constructor(private readonly stores: Transactional[]) {}

  get manager(): EntityManager {
    return new FakeTx(this.statements).manager;
  }

  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const restore = this.stores.map((s) => s.snapshot());
    const tx = new FakeTx(this.statements);
    try {
      const result = await fn(tx);
      for (const hook of tx.hooks) hook();
      return result;
    } catch (err) {
      restore.forEach((r) => r());
      throw err;
    }
  }

  runShared<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.run(fn);
  }

  /** The outbox rows written through Sql (writeOutbox): topic, key, event type and the envelope. */
  outboxWrites(): { topic: unknown; key: unknown; eventType: unknown; payload: Record<string, unknown> }[] {
    return this.statements
      .filter((s) => /^INSERT INTO outbox/.test(s.text))
      .flatMap((s) =>
        Array.from({ length: s.params.length / 6 }, (_, i) => s.params.slice(i * 6, i * 6 + 6)).map(([topic, key, eventType, , payload]) => ({
          topic,
          key,
          eventType,
          payload: JSON.parse(payload as string) as Record<string, unknown>,
        })),
      );
  }
}

/** What a unique violation of the diamonds' (box_scope, box_id, participant_id) index looks like from pg. */
function uniqueViolation(): Error {
  return Object.assign(new Error('duplicate key value violates unique constraint "diamonds_box_participant_id"'), {
    code: PG_UNIQUE_VIOLATION,
    constraint: 'diamonds_box_participant_id',
  });
}

/** `diamonds` in memory, with the custody entries and outbox events each write carries. */
export class InMemoryDiamonds implements Transactional {
  rows = new Map<string, DiamondRow>();
  entries: NewCustodyEntry[] = [];
  events: OutboxEvent[] = [];

  snapshot(): () => void {
    const [rows, entries, events] = [clone([...this.rows]), [...this.entries], [...this.events]];
    return () => {
      this.rows = new Map(rows);
      this.entries = entries;
      this.events = events;
    };
  }

  /** Stores rows as they are (test set-up: no entry, no event). */
  seed(...rows: DiamondRow[]): void {
    for (const r of rows) this.rows.set(r.diamond_id, clone(r));
  }

  get(id: string): DiamondRow | undefined {
    return this.rows.get(id);
  }

  async find(_sql: Sql, diamondId: string): Promise<DiamondRow | null> {
    const row = this.rows.get(diamondId);
    return row ? clone(row) : null;
  }

  async existsForShare(_sql: Sql, diamondId: string): Promise<boolean> {
    return this.rows.has(diamondId);
  }

  async findManyForUpdate(_sql: Sql, ids: string[]): Promise<DiamondRow[]> {
    return [...new Set(ids)].sort().flatMap((id) => (this.rows.has(id) ? [clone(this.rows.get(id)!)] : []));
  }

  async insertWithOutbox(sql: Sql, row: DiamondRow, events: OutboxEvent[], entry: NewCustodyEntry): Promise<void> {
    await this.insertManyWithOutbox(sql, [{ row, events, entry }]);
  }

  /** All or nothing, as the one statement is: a duplicate box/participant_id fails every write. */
  async insertManyWithOutbox(_sql: Sql, writes: NewDiamondWrite[]): Promise<void> {
    const keys = new Set([...this.rows.values()].filter((r) => r.participant_id !== null).map((r) => `${r.box_scope}|${r.box_id}|${r.participant_id}`));
    for (const { row } of writes) {
      const key = `${row.box_scope}|${row.box_id}|${row.participant_id}`;
      if (this.rows.has(row.diamond_id) || keys.has(key)) throw uniqueViolation();
      keys.add(key);
    }
    for (const w of writes) {
      this.rows.set(w.row.diamond_id, clone(w.row));
      this.entries.push(w.entry);
      this.events.push(...w.events);
    }
  }

  async update(_sql: Sql, row: DiamondRow, columns: readonly (keyof DiamondRow)[], entries: NewCustodyEntry[] = [], events: OutboxEvent[] = []): Promise<void> {
    this.write(row, columns);
    this.entries.push(...entries);
    this.events.push(...events);
  }

  async updateMany(
    _sql: Sql,
    rows: DiamondRow[],
    columns: readonly (keyof DiamondRow)[],
    entries: NewCustodyEntry[] = [],
    events: OutboxEvent[] = [],
  ): Promise<void> {
    for (const r of rows) this.write(r, columns);
    this.entries.push(...entries);
    this.events.push(...events);
  }

  private write(row: DiamondRow, columns: readonly (keyof DiamondRow)[]): void {
    const stored = this.rows.get(row.diamond_id);
    if (!stored) throw new Error(`diamond ${row.diamond_id} vanished during an update`);
    const next = { ...stored };
    for (const c of columns) (next as Record<string, unknown>)[c] = clone(row[c]);
    this.rows.set(row.diamond_id, next);
  }
}

/** `graded_measurements` in memory: the active record of each diamond. */
export class InMemoryGradedMeasurements implements Transactional {
  rows: GradedMeasurementRow[] = [];
  snapshot(): () => void {
    const rows = clone(this.rows);
    return () => (this.rows = rows);
  }
  async active(_tx: Tx, diamondId: string): Promise<GradedMeasurementRow | null> {
    return this.rows.find((g) => g.diamond_id === diamondId && g.is_active) ?? null;
  }
  async activeMany(_tx: Tx, diamondIds: string[]): Promise<GradedMeasurementRow[]> {
    return this.rows.filter((g) => diamondIds.includes(g.diamond_id) && g.is_active);
  }
}

/** `shipments` and `shipment_diamonds` in memory. */
export class InMemoryShipments implements Transactional {
  shipments = new Map<string, ShipmentRow>();
  entries = new Map<string, ShipmentDiamondRow[]>();
  snapshot(): () => void {
    const [s, e] = [clone([...this.shipments]), clone([...this.entries])];
    return () => {
      this.shipments = new Map(s);
      this.entries = new Map(e);
    };
  }
  async insert(_tx: Tx, s: ShipmentRow, entries: ShipmentDiamondRow[]): Promise<void> {
    if (this.shipments.has(s.shipment_id)) throw new Error(`shipment ${s.shipment_id} exists`);
    this.shipments.set(s.shipment_id, clone(s));
    this.entries.set(s.shipment_id, clone(entries));
  }
}

/** What platform knows of participants (auth.participants.v1): the directory and the repository over one map. */
export class InMemoryParticipants {
  readonly rows = new Map<string, ParticipantRow>();
  onboard(participant_id: string, role: Role, name = `participant ${participant_id}`, provenance: ParticipantRow['provenance'] = null): ParticipantRow {
    const row: ParticipantRow = { participant_id, name, role, provenance, base_url: null, revision: 1, updated_at: new Date(0) };
    this.rows.set(participant_id, row);
    return row;
  }
  async get(participantId: string): Promise<ParticipantRow | null> {
    return this.rows.get(participantId) ?? null;
  }
  async find(_tx: Tx | null, participantId: string): Promise<ParticipantRow | null> {
    return this.get(participantId);
  }
}

/** Box resolution: the caller's own box, unless the box id names a shipment box set up with `shipmentBox`. */
export class FakeBoxes extends BoxResolver {
  readonly shipmentBoxes = new Map<string, Extract<ResolvedBox, { kind: 'shipment' }>>();
  async resolve(caller: Caller, boxId: string): Promise<ResolvedBox> {
    return this.shipmentBoxes.get(boxId) ?? { kind: 'own', scope: caller.participantId };
  }
  /** A shipment box taking at most `capacity` registrations (409 `shipment_full` after, as the real reservation). */
  shipmentBox(boxId: string, capacity: number, producerUuid = 'producer-of-the-shipment'): { reserved: string[]; links: string[] } {
    const state = { reserved: [] as string[], links: [] as string[] };
    this.shipmentBoxes.set(boxId, {
      kind: 'shipment',
      scope: `shipment-${boxId}`,
      producerUuid,
      provenance: { provenance_name: 'Shipped Mine', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
      reserve: async (_tx, carats) => {
        if (state.reserved.length >= capacity) throw new ConflictError(`shipment ${boxId} is full`, 'shipment_full');
        state.reserved.push(carats);
      },
      links: async () => state.links,
    });
    return state;
  }
}

/** The refusal a promise rejects with: its kind and body (the answer's status and exact JSON). */
export async function refusal(p: Promise<unknown>): Promise<{ kind: string; body: Record<string, unknown> }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return { kind: err.kind, body: err.body as Record<string, unknown> };
}

export const caller = (participantId: string, role: Role = 'producer'): Caller => ({
  participantId,
  role,
  clientId: `client-${participantId}`,
  name: `Participant ${participantId}`,
});

/**
 * Platform's rule-holding services on in-memory repositories: RegistrationService, DiamondChanges and
 * TransferOutService share one set of stores (a registered diamond can be shipped), as in the running service.
 */
export function newTestService() {
  const diamonds = new InMemoryDiamonds();
  const graded = new InMemoryGradedMeasurements();
  const shipments = new InMemoryShipments();
  const participants = new InMemoryParticipants();
  const boxes = new FakeBoxes();
  const uow = new FakeUnitOfWork([diamonds, graded, shipments]);
  const config = Object.assign(new PlatformConfig(), { PUBLIC_BASE_URL: 'https://platform.example/' });
  // The registration hot path's batching writer hands each write to the one-statement insert; here, at once.
  const writer = { write: (w: NewDiamondWrite) => diamonds.insertManyWithOutbox(uow.sql, [w]) };

  const asDiamonds = diamonds as unknown as DiamondsRepository;
  const asUow = uow as unknown as UnitOfWork;
  const directory = participants as unknown as ParticipantDirectory;
  const changes = new DiamondChanges(asDiamonds, graded as unknown as GradedMeasurementsRepository);
  return {
    diamonds,
    graded,
    shipments,
    participants,
    boxes,
    uow,
    config,
    changes,
    registration: new RegistrationService(
      asUow,
      asDiamonds,
      directory,
      participants as unknown as ParticipantsRepository,
      boxes,
      writer as unknown as RegistrationWriter,
    ),
    transferOut: new TransferOutService(asUow, asDiamonds, changes, shipments as unknown as ShipmentsRepository, directory, config),
  };
}
