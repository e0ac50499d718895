import { z } from 'zod';
import { PhoneNumber } from './phone';

const name = z.string().trim().max(100);

/** POST /api/v1/leads (lead intake, `Authorization: Bearer <api key>`). */
export const LeadIntakeBody = z.object({
  fname: name.min(1, { error: 'The fname field is required.' }),
  lname: name.default(''),
  phone_number: PhoneNumber,
  email: z.optional(z.email({ error: 'The email must be a valid email address.' }).max(254)),
  company: z.optional(z.string().trim().max(200)),
  category: z.optional(z.string().trim().max(100)),
  source_id: z.optional(z.union([z.string().max(100), z.number().int()]).transform(String)),
});
export type LeadIntakeBody = z.infer<typeof LeadIntakeBody>;

/** A lead as the console shows it (spec section 3): the schema of the server's answers. */
export const LeadSchema = z.strictObject({
  id: z.int(),
  /** The name to show: first and last name, else the formatted number. */
  label: z.string(),
  fname: z.string(),
  lname: z.string(),
  name: z.string(),
  /** E.164. */
  phone_number: z.string(),
  phone_number_formatted: z.string(),
  company: z.string().nullable(),
  email: z.string().nullable(),
  category: z.string().nullable(),
  crm: z.string().nullable(),
  source_id: z.string().nullable(),
  profile_picture: z.string().nullable(),
});
/** A lead as the console shows it (spec section 3). */
export type Lead = z.infer<typeof LeadSchema>;

/** Answer of POST /api/v1/leads: the lead is stored either way; the call says what happened. */
export interface LeadIntakeResponse {
  success: true;
  lead: Lead;
  call: {
    id: number;
    /** `ringing` (an agent is rung), `queued` (waiting for an agent), or how it ended. */
    status: string;
    /** The agent being rung, or null. */
    agent_id: number | null;
    /** Why it waits or ended (a history reason code), or null. */
    reason: string | null;
  };
}
