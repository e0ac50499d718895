/**
 * The content of a call's connect token (`call.connectToken`, `device.connect({ connectToken })`),
 * as the official Voice SDK makes it: `btoa(encodeURIComponent(JSON.stringify(content)))`. A
 * device that has it (for example after a page reload) takes a live call over within the
 * gateway's reconnect grace period with an `invite` carrying `reconnect`.
 */
import * as z from 'zod/mini';

/** What a connect token holds. */
export const ConnectTokenContent = z.object({
  /** The call's connect params (outgoing) or its custom parameters. */
  customParameters: z.optional(z.record(z.string(), z.string())),
  /** The call's parameters; `CallSid` is required. */
  parameters: z.looseObject({ CallSid: z.string().check(z.minLength(1)) }),
  /** The reconnect token the gateway gave with the call's last `invite` or `answer`. */
  signalingReconnectToken: z.string().check(z.minLength(1)),
});
export type ConnectTokenContent = z.infer<typeof ConnectTokenContent>;
