import { ClientEntity } from './credentials/client.entity';
import { SigningKeyEntity } from './keys/signing-key.entity';
import { ParticipantEntity } from './participants/participant.entity';

/** Every TypeORM entity of the auth database. */
export const authEntities: Function[] = [ParticipantEntity, ClientEntity, SigningKeyEntity];
