export * from './messages';
export * from './codes';
export * from './token';
