export * from './validation-answered';
