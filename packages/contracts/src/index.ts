export * from './http/index';
export * from './signalling/index';
