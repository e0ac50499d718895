export * from './state-machine';
export * from './typed-emitter';
export * from './colour-contrast';
