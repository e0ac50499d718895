export * from './common';
export * from './auth';
export * from './leads';
export * from './calls';
export * from './phone';
