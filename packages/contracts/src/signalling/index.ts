export * from './messages';
export * from './codes';
export * from './token';
export * from './connect-token';
