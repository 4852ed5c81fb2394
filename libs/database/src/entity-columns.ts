import { getMetadataArgsStorage } from 'typeorm';

/** One column of an entity, as its decorators declare it. */
export interface EntityColumn<T> {
  /** The entity's property (the same as the database column name: every service names properties after their columns). */
  property: keyof T & string;
  /** The database column name (`@Column({ name })`, else the property). */
  name: string;
  /** The declared column type (`'jsonb'`, `'bigint'`, ...). */
  type: string;
}

const cache = new Map<Function, readonly unknown[]>();

/**
 * The columns an entity class declares (`@Column`, `@PrimaryColumn`, `@CreateDateColumn`, ...; relations are not
 * columns), in declaration order, read from TypeORM's decorator metadata: no DataSource needed, so a repository can
 * build its raw-SQL column lists at load time from the one description of its table, the entity.
 */
export function entityColumns<T extends object>(entity: new () => T): readonly EntityColumn<T>[] {
  const cached = cache.get(entity);
  if (cached !== undefined) return cached as readonly EntityColumn<T>[];
  const columns: EntityColumn<T>[] = getMetadataArgsStorage()
    .filterColumns(entity)
    .map((c) => ({ property: c.propertyName as keyof T & string, name: c.options.name ?? c.propertyName, type: String(c.options.type ?? '') }));
  if (columns.length === 0) throw new Error(`${entity.name} declares no columns`);
  cache.set(entity, columns);
  return columns;
}
