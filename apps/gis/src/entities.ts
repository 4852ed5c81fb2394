/** Every TypeORM entity of the gis database. */
export const gisEntities: Function[] = [];
