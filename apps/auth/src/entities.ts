/** Every TypeORM entity of the auth database. */
export const authEntities: Function[] = [];
