export * from './participant';
export * from './dtmf-tone';
export * from './telephony-event';
export * from './telephony';
