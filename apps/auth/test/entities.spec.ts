import { describeEntities } from '@dtp/testing';
import { authEntities } from '../src/entities';
import { authMigrations } from '../src/migrations';

// Every auth entity named after its columns and held to the migrated table (libs/testing/src/entities.ts).
describeEntities('auth', authEntities, authMigrations, { schemaBuilder: false });
