import { Injectable } from '@nestjs/common';
import { Sql, Tx, UnitOfWork } from '@dtp/database';

export { PG_DEADLOCK_DETECTED, PG_FOREIGN_KEY_VIOLATION, PG_SERIALIZATION_FAILURE, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from '@dtp/database';
export type { Sql, Tx };

/** TEMPORARY: the features' old name for the service's UnitOfWork (removed once they use it directly). */
@Injectable()
export class PlatformDb {
  constructor(private readonly uow: UnitOfWork) {}

  committed(): void {
    this.uow.committed();
  }

  get sql(): Sql {
    return this.uow.sql;
  }

  tx<T>(fn: (sql: Tx) => Promise<T>): Promise<T> {
    return this.uow.run(fn);
  }
}
