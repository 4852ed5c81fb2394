/** Every TypeORM entity of the search database. */
export const searchEntities: Function[] = [];
