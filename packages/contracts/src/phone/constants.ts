/**
 * The phone module's constants, each with its spec section (`/shared/spec/product-spec.md`).
 * The parsing limits are also `libphonenumber-js`'s own; they are named here so the rules the
 * product promises are written down once, and the tests check the library keeps them.
 */

/** §5, §9: parsing needs at least this many digits. */
export const PHONE_MIN_DIGITS = 2;

/** §5, §9: a national (significant) number may have at most this many digits. */
export const PHONE_MAX_NATIONAL_DIGITS = 17;

/** §5, §9: text longer than this is not parsed at all (TOO_LONG). */
export const PHONE_MAX_INPUT_CHARS = 250;

/** §5, §9: an extension (`ext. 1234`) may have at most this many digits. */
export const PHONE_MAX_EXTENSION_DIGITS = 20;

/** §2, §9: the phone input's default maximum length, also the server's field limit. */
export const PHONE_INPUT_MAX_LENGTH = 25;
