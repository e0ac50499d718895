import { z } from 'zod';
import { PHONE_INPUT_MAX_LENGTH } from '../phone/constants';
import { toE164 } from '../phone/normalize-phone';

// The parsing and normalising live in the shared phone module; the server keeps importing
// these from '@leadline/contracts'.
export { toE164, formatPhone } from '../phone/normalize-phone';

/**
 * A phone number field named `name` in its messages ('The <name> field is required.', 'The
 * <name> is not a valid phone number.'): any common notation in, E.164 out.
 */
export const phoneNumberField = (name: string) =>
  z
    .string({ error: `The ${name} field is required.` })
    .trim()
    .min(1, { error: `The ${name} field is required.` })
    .max(PHONE_INPUT_MAX_LENGTH, {
      error: `The ${name} may not be longer than ${PHONE_INPUT_MAX_LENGTH} characters.`,
    })
    .transform((value, ctx) => {
      const e164 = toE164(value);
      if (!e164) {
        ctx.addIssue({ code: 'custom', message: `The ${name} is not a valid phone number.` });
        return z.NEVER;
      }
      return e164;
    });

/** The `phone_number` field: any common notation in, E.164 out. */
export const PhoneNumber = phoneNumberField('phone number');
