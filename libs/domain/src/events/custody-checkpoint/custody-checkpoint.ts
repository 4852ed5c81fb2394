import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CUSTODY_ACTION_VALUES, CUSTODY_EVENT_MAX_ENTRIES, CustodyAction, SHA256_HEX_PATTERN } from '../../custody/actions';
import type { CustodyCheckpoint, CustodyEntry, CustodyEntryContext, IndexedCustodyEntry } from '../../custody/entry';

/**
 * `custody.checkpoint` on platform.custody.v1; key = log_id, revision = the checkpoint's number (1, 2, ...).
 * One event per signed checkpoint, carrying the entries appended since the previous one (leaf_index from the
 * previous tree_size up to tree_size - 1, in order; none for a checkpoint that only refreshes the timestamp).
 * One key, so one partition: consumers see checkpoints in order and rebuild the same tree.
 */
export interface CustodyCheckpointData {
  checkpoint: CustodyCheckpoint;
  entries: IndexedCustodyEntry[];
}

export class CustodyEntryPayload implements CustodyEntry {
  @IsString() @IsNotEmpty() diamond_id!: string;
  @IsString() @IsNotEmpty() version_id!: string;
  @IsIn(CUSTODY_ACTION_VALUES) action!: CustodyAction;
  @ValidateIf((_o, v) => v !== null) @IsString() actor_participant_id!: string | null;
  @IsISO8601({ strict: true }) occurred_at!: string;
  @Matches(SHA256_HEX_PATTERN) record_sha256!: string;
  @ValidateIf((_o, v) => v !== null) @Matches(SHA256_HEX_PATTERN) prev_entry_hash!: string | null;
  @IsOptional() @IsArray() @ArrayMinSize(1) @Matches(SHA256_HEX_PATTERN, { each: true }) links?: string[];
}

export class CustodyEntryContextPayload implements CustodyEntryContext {
  @IsOptional() @IsString() shipment_id?: string;
  @IsOptional() @IsString() counterparty_participant_id?: string;
}

export class IndexedCustodyEntryPayload implements IndexedCustodyEntry {
  @IsObject() @ValidateNested() @Type(() => CustodyEntryPayload) entry!: CustodyEntryPayload;
  @Matches(SHA256_HEX_PATTERN) entry_hash!: string;
  @IsInt() @Min(0) leaf_index!: number;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => CustodyEntryContextPayload) context?: CustodyEntryContextPayload;
}

export class CustodyCheckpointPayload implements CustodyCheckpoint {
  @IsString() @IsNotEmpty() log_id!: string;
  @IsInt() @Min(0) tree_size!: number;
  @Matches(SHA256_HEX_PATTERN) root_hash!: string;
  @IsISO8601({ strict: true }) timestamp!: string;
  @IsString() @Matches(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/) jws!: string;
}

export class CustodyCheckpointEventPayload implements CustodyCheckpointData {
  @IsObject() @ValidateNested() @Type(() => CustodyCheckpointPayload) checkpoint!: CustodyCheckpointPayload;

  @IsArray()
  @ArrayMaxSize(CUSTODY_EVENT_MAX_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => IndexedCustodyEntryPayload)
  entries!: IndexedCustodyEntryPayload[];
}
