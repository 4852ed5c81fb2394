import type { ObjectLiteral, Repository } from 'typeorm';

/**
 * Entities from the rows of a raw query on `repo`'s table (its database column names), through the entity's
 * metadata and the driver's own conversions, as a `find` would build them.
 */
export function hydrate<T extends ObjectLiteral>(repo: Repository<T>, rows: readonly Record<string, unknown>[]): T[] {
  const driver = repo.manager.dataSource.driver;
  return rows.map((row) => {
    const entity = repo.create();
    for (const column of repo.metadata.columns) {
      if (column.databaseName in row) column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return entity;
  });
}

