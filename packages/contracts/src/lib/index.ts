export * from './state-machine';
export * from './typed-emitter';
