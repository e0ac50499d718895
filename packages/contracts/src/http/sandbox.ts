import { z } from 'zod';
import { phoneNumberField } from './phone';

/**
 * POST /api/v1/sandbox/inbound (embedded mode only): a virtual caller `from` dials `to`, one of
 * the account's caller numbers.
 */
export const SandboxInboundBody = z.object({
  from: phoneNumberField('from number'),
  to: phoneNumberField('to number'),
});
export type SandboxInboundBody = z.infer<typeof SandboxInboundBody>;

/** Answer of POST /api/v1/sandbox/inbound: the call and what became of it. */
export interface SandboxInboundResponse {
  success: true;
  call: {
    id: number;
    sid: string;
    direction: 'inbound';
    phone_number: string;
    /** `ringing` (an agent is rung) or how it ended (missed, busy, offline). */
    status: string;
    agent_id: number | null;
    reason: string | null;
  };
}
