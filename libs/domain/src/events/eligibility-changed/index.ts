export * from './eligibility-changed';
