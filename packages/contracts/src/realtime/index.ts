export * from './pusher-protocol';
