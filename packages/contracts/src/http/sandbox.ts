import { z } from 'zod';
import { PHONE_INPUT_MAX_LENGTH } from '../phone/constants';
import { toE164 } from '../phone/normalize-phone';

/** A phone number field named `field` in its messages: any common notation in, E.164 out. */
const phoneField = (field: string) =>
  z
    .string({ error: `The ${field} field is required.` })
    .trim()
    .min(1, { error: `The ${field} field is required.` })
    .max(PHONE_INPUT_MAX_LENGTH, {
      error: `The ${field} number may not be longer than ${PHONE_INPUT_MAX_LENGTH} characters.`,
    })
    .transform((value, ctx) => {
      const e164 = toE164(value);
      if (!e164) {
        ctx.addIssue({
          code: 'custom',
          message: `The ${field} number is not a valid phone number.`,
        });
        return z.NEVER;
      }
      return e164;
    });

/**
 * POST /api/v1/sandbox/inbound (embedded mode only): a virtual caller `from` dials `to`, one of
 * the account's caller numbers.
 */
export const SandboxInboundBody = z.object({
  from: phoneField('from'),
  to: phoneField('to'),
});
export type SandboxInboundBody = z.infer<typeof SandboxInboundBody>;

/** Answer of POST /api/v1/sandbox/inbound. */
export interface SandboxInboundResponse {
  success: true;
  call: { id: number; sid: string; direction: 'inbound'; phone_number: string };
}
