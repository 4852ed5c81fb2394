export * from './grading-submitted';
