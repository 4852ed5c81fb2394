export * from './shipment-changed';
