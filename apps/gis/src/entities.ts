import { GisDiamondEntity } from './diamonds/gis-diamond.entity';
import { GradingEntity } from './grading/grading.entity';
import { ScanReportEntity } from './scan-reports/scan-report.entity';
import { ValidationRequestEntity } from './validation/validation-request.entity';
import { VerifyAttemptEntity } from './verify/verify-attempt.entity';

/**
 * Every TypeORM entity of the gis database: the one description of each table in code (the migrations are its
 * history). Property names are the column names, as in every service, so a raw-SQL row is an entity as it is
 * (test/entities.spec.ts holds every entity to its migrated table).
 */
export const gisEntities: Function[] = [GisDiamondEntity, ScanReportEntity, VerifyAttemptEntity, ValidationRequestEntity, GradingEntity];
