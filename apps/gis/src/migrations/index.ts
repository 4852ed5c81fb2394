import { Outbox1763769600000 } from './1763769600000-outbox';

/** Every migration of the gis database, in order. Add new ones at the end. */
export const gisMigrations = [Outbox1763769600000];
