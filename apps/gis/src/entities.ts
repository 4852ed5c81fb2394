import { GisDiamondEntity } from './diamonds/gis-diamond.entity';
import { GradingEntity } from './grading/grading.entity';
import { ScanReportEntity } from './scan-reports/scan-report.entity';
import { ValidationRequestEntity } from './validation/validation-request.entity';
import { VerifyAttemptEntity } from './verify/verify-attempt.entity';

/** Every TypeORM entity of the gis database. */
export const gisEntities: Function[] = [GisDiamondEntity, ScanReportEntity, VerifyAttemptEntity, ValidationRequestEntity, GradingEntity];
