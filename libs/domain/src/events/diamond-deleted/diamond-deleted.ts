import { IsDiamondIdFormat } from '../../dto/validators';

/** `diamond.deleted` on platform.diamonds.v1; key = diamond_id. A Kafka tombstone follows it. */
export interface DiamondDeletedData {
  diamond_id: string;
}

export class DiamondDeletedPayload implements DiamondDeletedData {
  @IsDiamondIdFormat() diamond_id!: string;
}
