export * from './file-refs';
export * from './grading-data-view';
export * from './diamond-v1';
export * from './shipment';
export * from './delete-result';
export * from './gis-results';
export * from './auth';
export * from './errors';
