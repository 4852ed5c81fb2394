export * from './decimal';
export * from './tolerances';
export * from './shape-groups';
export * from './ids';
export * from './timestamps';
export * from './limits';
export * from './roles';
export * from './lifecycle';
