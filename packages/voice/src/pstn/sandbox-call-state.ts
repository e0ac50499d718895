import { statesOf, type TransitionTable } from '../media/state-machine';

/** What happens to a call of the sandbox phone network, as its call log sees it. */
export type SandboxCallEvent = 'answer' | 'busy' | 'no-answer' | 'failed' | 'end';

/**
 * Lifecycle of a call in the sandbox network's call log (`SandboxCall.state`): placed (dialled
 * out, or a caller ringing in), it is answered or not; an answered call ends when either side
 * hangs up, and a ringing one ends when it is hung up before an answer.
 *
 * ```text
 *   ringing ──answer──▶ answered ──end──▶ ended
 *      │                                    ▲
 *      ├──busy──▶ busy                      │
 *      ├──no-answer──▶ no-answer            │
 *      ├──failed──▶ failed                  │
 *      └──end───────────────────────────────┘
 * ```
 * `busy`, `no-answer`, `failed` and `ended` are final.
 */
export const SANDBOX_CALL_TRANSITIONS = {
  ringing: {
    answer: 'answered',
    busy: 'busy',
    'no-answer': 'no-answer',
    failed: 'failed',
    end: 'ended',
  },
  answered: { end: 'ended' },
  busy: {},
  'no-answer': {},
  failed: {},
  ended: {},
} as const satisfies TransitionTable<string, SandboxCallEvent>;

/** States of a call in the sandbox network's call log. */
export type SandboxCallState = keyof typeof SANDBOX_CALL_TRANSITIONS;

/** Every state of a sandbox call, derived from the table. */
export const SANDBOX_CALL_STATES: SandboxCallState[] = statesOf<SandboxCallState, SandboxCallEvent>(
  SANDBOX_CALL_TRANSITIONS,
);
