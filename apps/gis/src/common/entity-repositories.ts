import type { Provider } from '@nestjs/common';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, ObjectLiteral, Repository } from 'typeorm';

/**
 * The TypeORM `Repository` providers that `TypeOrmModule.forFeature(entities)` gives, built from the injected
 * DataSource while the root module has no `TypeOrmModule.forRootAsync` yet. Repositories take them with
 * `@InjectRepository(Entity)`; once the root module registers TypeORM, each feature module replaces
 * `...entityRepositories([...])` in its providers with `TypeOrmModule.forFeature([...])` in its imports.
 */
export function entityRepositories(entities: ReadonlyArray<new () => ObjectLiteral>): Provider[] {
  return entities.map((entity) => ({
    provide: getRepositoryToken(entity),
    useFactory: (ds: DataSource) => ds.getRepository(entity),
    inject: [DataSource],
  }));
}

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

