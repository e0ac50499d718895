import { statesOf, type TransitionTable } from './state-machine';

/** Events that move the engine (main thread) through its lifecycle. */
export type EngineEvent = 'start' | 'started' | 'fail' | 'close' | 'closed';

/**
 * Lifecycle of `WorkerMediaEngine`.
 *
 * ```text
 *   idle ──start──▶ starting ──started──▶ running ──close──▶ closing ──closed──▶ closed
 *    │                 │                     │                                    ▲
 *    │                 └──fail──▶ failed ◀───┘ (worker crashed)                   │
 *    │                              └──────────────close──────────────────────────┤
 *    └─────────────────────────────────────────close──────────────────────────────┘
 * ```
 */
export const ENGINE_TRANSITIONS = {
  idle: { start: 'starting', close: 'closed' },
  starting: { started: 'running', fail: 'failed' },
  running: { close: 'closing', fail: 'failed' },
  closing: { closed: 'closed' },
  failed: { close: 'closed' },
  closed: {},
} as const satisfies TransitionTable<string, EngineEvent>;

/** States of the engine. */
export type EngineState = keyof typeof ENGINE_TRANSITIONS;

/** Every engine state, derived from the table. */
export const ENGINE_STATES: EngineState[] = statesOf<EngineState, EngineEvent>(ENGINE_TRANSITIONS);
