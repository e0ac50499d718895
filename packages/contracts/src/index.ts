export * from './http/index';
export * from './signalling/index';
export * from './phone/index';
export * from './realtime/index';
