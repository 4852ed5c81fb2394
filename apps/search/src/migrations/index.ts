import { SearchReadModel1763900000000 } from './1763900000000-search-read-model';
import { RecordJson1764288000000 } from './1764288000000-record-json';
import { CustodyLog1764700000000 } from './1764700000000-custody-log';
import { Passport1764800000000 } from './1764800000000-passport';
import { Lookup1765000000000 } from './1765000000000-lookup';
import { UnusedParentIndex1765677600000 } from './1765677600000-unused-parent-index';

/** Every migration of the search database, in order. Add new ones at the end. */
export const searchMigrations: Function[] = [
  SearchReadModel1763900000000,
  RecordJson1764288000000,
  CustodyLog1764700000000,
  Passport1764800000000,
  Lookup1765000000000,
  UnusedParentIndex1765677600000,
];
