/**
 * How a call ends, or waits, when nobody could be offered it: the router's reason becomes the
 * call's transition (`call-status.ts`), and a web lead that an agent may still take waits in the
 * queue instead.
 */
import type { NobodyReason } from '../routing/router';
import type { CallEvent } from './call-status';

/** Whether a web lead nobody could be offered waits in the queue (an agent may free up). */
export const waitsInQueue = (reason: NobodyReason): boolean =>
  reason === 'all-agents-busy' || reason === 'no-agents-online';

/** Why nobody could be offered a call → how it ends. */
export const NOBODY_EVENT: Record<NobodyReason, CallEvent> = {
  'no-agent-answered': 'nobody-answered',
  'all-agents-busy': 'all-busy',
  'no-agents-online': 'no-agents',
  'outside-hours': 'closed',
};

/** What the console is told when nobody could take a call it asked for. */
export const NOBODY_MESSAGES: Record<NobodyReason, string> = {
  'no-agent-answered': 'No agent answered.',
  'all-agents-busy': 'All agents are busy.',
  'no-agents-online': 'No agent is online to take the call.',
  'outside-hours': 'Outside availability hours.',
};
