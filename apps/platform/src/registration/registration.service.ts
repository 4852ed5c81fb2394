import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { ConflictError, CreateRoughDiamondDto, invalidFields } from '@dtp/domain';
import { PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode, Sql, UnitOfWork } from '@dtp/database';
import { CommittedChange, insertNewDiamond, newDiamondWrite } from '../diamonds/diamond-changes';
import { DiamondRow } from '../diamonds/diamond.entity';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { newDiamondRow, roughFromSchema } from '../diamonds/new-diamond-row';
import { ParticipantDirectory } from '../participants/participant-directory';
import { lockParticipant } from '../participants/participant-lock';
import { ParticipantsRepository } from '../participants/participants.repository';
import { ProvenanceDecision, provenanceForRegistration } from '../participants/provenance';
import { BoxResolver, ResolvedBox } from '../diamonds/box-resolver';
import { RegistrationWriter } from './registration-writer';

const UNIQUE_INDEX = 'diamonds_box_participant_id';

/** Rough registration: `POST /diamonds/rough/create`. */
@Injectable()
export class RegistrationService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly directory: ParticipantDirectory,
    private readonly participants: ParticipantsRepository,
    @Inject(BoxResolver) private readonly boxes: BoxResolver,
    private readonly writer: RegistrationWriter,
  ) {}

  /** The new diamond's record, with its JSON text (as its event carries it) and its custody entry's hash. */
  async registerRough(caller: Caller, dto: CreateRoughDiamondDto): Promise<CommittedChange> {
    checkSafeIntegers(dto);
    const box = await this.boxes.resolve(caller, dto.box_id);
    const now = new Date();
    try {
      if (box.kind === 'shipment') {
        const row = newRoughRow(caller, dto, box, { provenance: box.provenance, pending: false }, box.producerUuid, now);
        return await this.uow.run(async (sql) => {
          await box.reserve(sql, row.rough.carats!);
          // Not a root: its first entry links to the shipped diamonds' latest entries, so the chain reaches the producer.
          return insertNewDiamond(this.diamonds, sql, row, caller.participantId, null, now, await box.links(sql));
        });
      }
      const decision = provenanceForRegistration(caller, await this.directory.get(caller.participantId));
      if (!decision.pending) {
        // The hot path: one statement (diamond, custody entry, outbox row), no explicit transaction, shared with the
        // registrations that arrive at the same time (RegistrationWriter).
        const { change, write } = newDiamondWrite(newRoughRow(caller, dto, box, decision, caller.participantId, now), caller.participantId, null, now);
        await this.writer.write(write);
        return change;
      }
      // The participant's onboarding event has not arrived: serialise with its consumer (same advisory lock), so
      // either we see the participant now or the consumer sees our pending diamond and fixes its provenance.
      return await this.uow.run(async (sql) => {
        await lockParticipant(sql, caller.participantId);
        const again = provenanceForRegistration(caller, await this.participants.find(sql, caller.participantId));
        return this.insert(sql, newRoughRow(caller, dto, box, again, caller.participantId, now), caller, now);
      });
    } catch (err) {
      if (pgErrorCode(err) === PG_UNIQUE_VIOLATION && pgConstraint(err) === UNIQUE_INDEX) {
        throw new ConflictError(`diamond is not unique: participant_id ${dto.participant_id} is already registered in box ${dto.box_id}`, 'diamond_not_unique');
      }
      throw err;
    }
  }

  /** The diamond, its first custody entry (`registered`, a root: its own box) and its event: one statement. */
  private insert(sql: Sql, row: DiamondRow, caller: Caller, now: Date): Promise<CommittedChange> {
    return insertNewDiamond(this.diamonds, sql, row, caller.participantId, null, now);
  }
}

/** A new rough diamond as registered: locked, held by the registering participant, revision 1. */
export function newRoughRow(
  caller: Caller,
  dto: CreateRoughDiamondDto,
  box: ResolvedBox,
  decision: ProvenanceDecision,
  producerUuid: string,
  now: Date,
): DiamondRow {
  return newDiamondRow(
    {
      uploader_id: caller.participantId,
      holder_id: caller.participantId,
      producer_uuid: producerUuid,
      box_scope: box.scope,
      box_id: dto.box_id,
      participant_id: dto.participant_id,
      diamond_parent_id: null,
      participant_parent_id: null,
      legacy_parent_id: null,
      lifecycle_state: 'rough',
      current_stage: 'rough',
      assurance_level: dto.assurance_level ?? 'assured',
      provenance_pending: decision.pending,
      box_description: dto.box_description ?? null,
      sight_no: dto.sight_no ?? null,
      sight_year: dto.sight_year ?? null,
      participant_timestamp: dto.participant_timestamp,
      rough: roughFromSchema(dto.rough),
      polished: {},
      provenance: decision.provenance,
      entity_specific_tags: dto.entity_specific_tags ?? null,
      supplementary_tags: dto.supplementary_tags ?? null,
    },
    now,
  );
}

/** sight_no/sight_year are stored as bigint; integers beyond JavaScript's safe range would not round-trip. */
function checkSafeIntegers(dto: CreateRoughDiamondDto): void {
  const bad = (['sight_no', 'sight_year'] as const).filter((k) => typeof dto[k] === 'number' && !Number.isSafeInteger(dto[k]));
  if (bad.length > 0) {
    throw invalidFields(
      bad.map((k) => ({ loc: ['body', k], msg: `${k} must be an integer between -9007199254740991 and 9007199254740991`, type: 'int_type' })),
    );
  }
}
