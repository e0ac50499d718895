export * from './pusher-protocol';
export * from './realtime-settings';
