/**
 * Output formats of a phone number (spec section 5) and the `automatic` mode that picks one
 * from what was typed.
 */

/** Every output format. */
export const PHONE_FORMATS = ['national', 'international', 'e.164', 'rfc3966', 'idd'] as const;

/**
 * An output format: `national` `(415) 555-0132`, `international` `+1 415 555 0132`,
 * `e.164` `+14155550132`, `rfc3966` `tel:+14155550132`, `idd` as dialled from another country
 * (`011 44 20 7946 0958` from the US).
 */
export type PhoneFormat = (typeof PHONE_FORMATS)[number];

/** A format, or `automatic`: international when the text starts with `+`, else national. */
export type PhoneFormatMode = PhoneFormat | 'automatic';

/** The format used when a mode is not one of the known ones. */
export const FALLBACK_PHONE_FORMAT: PhoneFormat = 'international';

/** Whether `mode` is a known {@link PhoneFormatMode}. */
export function isPhoneFormatMode(mode: unknown): mode is PhoneFormatMode {
  return mode === 'automatic' || (PHONE_FORMATS as readonly unknown[]).includes(mode);
}

/**
 * The format `mode` means for `text`: `automatic` is international when the text starts with
 * `+` (after leading whitespace), else national; an unknown mode falls back to international.
 */
export function resolvePhoneFormat(mode: string, text: string): PhoneFormat {
  if (!isPhoneFormatMode(mode)) return FALLBACK_PHONE_FORMAT;
  if (mode !== 'automatic') return mode;
  return text.trimStart().startsWith('+') ? 'international' : 'national';
}
