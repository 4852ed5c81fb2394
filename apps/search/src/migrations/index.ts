/** Every migration of the search database, in order. Add new ones at the end. */
export const searchMigrations: Function[] = [];
