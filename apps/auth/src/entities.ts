import { ClientCertificateEntity } from './certificates/client-certificate.entity';
import { ClientEntity } from './credentials/client.entity';
import { SigningKeyEntity } from './keys/signing-key.entity';
import { ParticipantEntity } from './participants/participant.entity';

/**
 * Every TypeORM entity of the auth database: the one description of each table in code (the migrations are its
 * history). Property names are the column names, as in every service (test/entities.spec.ts).
 */
export const authEntities: Function[] = [ParticipantEntity, ClientEntity, SigningKeyEntity, ClientCertificateEntity];
