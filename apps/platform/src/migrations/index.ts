import { Outbox1763769600000 } from './1763769600000-outbox';

/** Every migration of the platform database, in order. Add new ones at the end. */
export const platformMigrations = [Outbox1763769600000];
