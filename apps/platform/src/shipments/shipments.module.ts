import { Module } from '@nestjs/common';
import { ShipmentListService } from './shipment-list.service';
import { ShipmentsController } from './shipments.controller';
import { TransferInService } from './transfer-in.service';
import { TransferOutService } from './transfer-out.service';

/** Shipments and transfers (docs/lifecycle.md). ShipmentsRepository comes from DiamondsCoreModule (shared with registration and deletion). */
@Module({
  controllers: [ShipmentsController],
  providers: [TransferOutService, TransferInService, ShipmentListService],
})
export class ShipmentsModule {}
