import { describeEntities } from '@dtp/testing';
import { gisEntities } from '../src/entities';
import { gisMigrations } from '../src/migrations';

// Every gis entity named after its columns and held to the migrated table (libs/testing/src/entities.ts).
describeEntities('gis', gisEntities, gisMigrations);
