import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BoxResolver } from '../diamonds/box-resolver';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantsModule } from '../participants/participants.module';
import { ShipmentDiamondEntity, ShipmentEntity } from './shipment.entity';
import { ShipmentBoxResolver } from './shipment-box.resolver';
import { ShipmentListService } from './shipment-list.service';
import { ShipmentsController } from './shipments.controller';
import { ShipmentsRepository } from './shipments.repository';
import { TransferInService } from './transfer-in.service';
import { TransferOutService } from './transfer-out.service';

/**
 * Shipments and transfers (docs/lifecycle.md). Exports the shipments repository (deletion gives registrations
 * back) and the BoxResolver that registration asks what a box_id names.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ShipmentEntity, ShipmentDiamondEntity]), DiamondsModule, ParticipantsModule],
  controllers: [ShipmentsController],
  providers: [TransferOutService, TransferInService, ShipmentListService, ShipmentsRepository, { provide: BoxResolver, useClass: ShipmentBoxResolver }],
  exports: [ShipmentsRepository, BoxResolver],
})
export class ShipmentsModule {}
