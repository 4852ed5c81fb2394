/** Every TypeORM entity of the platform database. */
export const platformEntities: Function[] = [];
