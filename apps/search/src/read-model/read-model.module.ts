import { Module } from '@nestjs/common';
import { DiamondEventsController } from './diamond-events.controller';
import { ReadModelRepository } from './read-model.repository';

/** The read model: its repository (all SQL on its tables) and the platform.diamonds.v1 handler that fills it. */
@Module({
  controllers: [DiamondEventsController],
  providers: [ReadModelRepository],
  exports: [ReadModelRepository],
})
export class ReadModelModule {}
