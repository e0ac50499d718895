/**
 * The one phone-number module shared by the web app and the server (spec sections 2, 5, 8, 9):
 * parsing with the spec's rules and error codes, output formats, the phone input's validation
 * result, country metadata, and E.164 normalisation. Built on `libphonenumber-js`.
 */
export * from './constants';
export * from './phone-parse-error';
export * from './phone-format';
export * from './phone-countries';
export * from './parse-phone';
export * from './validate-phone';
export * from './normalize-phone';
