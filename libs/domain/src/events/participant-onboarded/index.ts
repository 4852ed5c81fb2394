export * from './participant-onboarded';
