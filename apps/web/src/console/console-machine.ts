/**
 * The console flow (spec section 4) as one pure state machine: a state value, a transition table
 * (data: view → event → next view), and {@link transition}. No I/O, no timers, no policy: the
 * {@link ConsoleController} performs the effects and feeds events in.
 *
 * ```text
 *                       userMissing                 loggedOut (from every view)
 *   (start) waiting ───────────────▶ login ◀────────────────────────────────────
 *            │ ▲  │
 *            │ │  │ dial  (the server accepted a New Call; banner 'Dialing...')
 *            │ │  ▼
 *            │ │ dialing ───accept (the far end answered)───┐
 *   incoming │ │ ignore | cancel | disconnect               │
 *            ▼ │                                            ▼
 *          ringing ──────────────accept──────────────────▶ oncall ──mute | hold | panel | digit |
 *                                                           │      digitRefused | role | conferenced |
 *                                                           │      leadAdded | reconnecting | reconnected |
 *                                                           │      qualityWarning | qualityWarningCleared──▶ oncall
 *                                                           │
 *                  disconnect from oncall, or from dialing  │  (banner 'Call Ended')
 *                  ┌────────────────────────────────────────┴───────┐
 *   inbound, listen, whisper                                   other calls
 *                  ▼                                                ▼
 *      thankyou (autoReset after 2000 ms)                      disposition
 *                                                                   │
 *     dispose: voicemail or missed, with app-sms ──▶ sms ──smsSent | smsCancelled──▶ thankyou
 *     dispose: contacted, profile is_deal_whispertext ──▶ disposition2 ──tagChosen | tagsSkipped──▶ thankyou
 *     dispose: otherwise ──▶ thankyou
 *     smsChosen (SMS, app-sms) ──▶ sms
 *     retry (Retry, app-retry: a new call to the same lead) ──▶ waiting
 *
 *   thankyou ──addNote──▶ note ──saveNote | skipNote──▶ waiting
 *   thankyou ──done | autoReset──▶ waiting
 *   waiting ──notice──▶ waiting (a line for the agent: Retry's or Check for lead's answer)
 *   dialing ──qualityWarning | qualityWarningCleared──▶ dialing (kept for when the far end answers)
 *   every view but login ──connectionError | phoneError──▶ waiting
 * ```
 *
 * Entering `waiting` or `login` is the spec's cleanup: the call, banner, timer, mute state and
 * call quality warnings are cleared (a call's end already forgets its warnings) and the epoch
 * moves on, so async results tagged with an older epoch are dropped. A new call (`incoming`,
 * `dial`) also starts a new epoch.
 */
import type { CallType, Disposition, Lead } from '@leadline/contracts';
import { CALL_ENDED_BANNER, DIALING_BANNER } from '../constants';
import { WebError } from '../errors';
import {
  NO_FOLLOW_UPS,
  elapsedWhenJoinedMs,
  endsInThankyou,
  wantsTags,
  type ConsoleCall,
  type FollowUps,
} from './call-rules';

/** Everything that can happen to the console. */
export type ConsoleEvent =
  /** The user fetch found no session. */
  | { readonly type: 'userMissing' }
  /** The agent logged out. */
  | { readonly type: 'loggedOut' }
  /** A call rang and its call user was loaded; `followUps` from the agent's permissions. */
  | {
      readonly type: 'incoming';
      readonly call: ConsoleCall;
      readonly banner: string;
      readonly followUps: FollowUps;
    }
  /** The server accepted an outbound call (New Call); the softphone is placing it. */
  | { readonly type: 'dial'; readonly call: ConsoleCall; readonly followUps: FollowUps }
  /** The agent (or auto-accept) answered, at `atMs` by the injected clock. */
  | { readonly type: 'accept'; readonly atMs: number }
  /** The agent ignored the ringing call. */
  | { readonly type: 'ignore' }
  /** The caller gave up before the call was answered. */
  | { readonly type: 'cancel' }
  /** The microphone was muted or unmuted. */
  | { readonly type: 'mute'; readonly muted: boolean }
  /** The server put the lead on hold (`held`) or took it off. */
  | { readonly type: 'hold'; readonly held: boolean }
  /** An on-call panel was opened (or, with null, closed). */
  | { readonly type: 'panel'; readonly panel: OnCallPanel | null }
  /** A keypad digit went out on the call. */
  | { readonly type: 'digit'; readonly digit: string }
  /** The softphone refused a keypad digit (signalling down); `message` is its error. */
  | { readonly type: 'digitRefused'; readonly message: string }
  /** The supervisor's role on the call changed (listen → whisper → barge). */
  | { readonly type: 'role'; readonly role: CallType }
  /** The server took this agent's request to add an agent to the call (Conference). */
  | { readonly type: 'conferenced' }
  /** A lead was added to the call (Add Lead) and answered: the lead card fills in. */
  | { readonly type: 'leadAdded'; readonly lead: Lead }
  /** The call lost its connection at `atMs` (injected clock) and is reconnecting. */
  | { readonly type: 'reconnecting'; readonly atMs: number }
  /** The call's connection is back. */
  | { readonly type: 'reconnected' }
  /** The softphone raised call quality warning `name` (spec section 9). */
  | { readonly type: 'qualityWarning'; readonly name: string }
  /** Call quality warning `name` cleared. */
  | { readonly type: 'qualityWarningCleared'; readonly name: string }
  /** The call ended (hung up on either side). */
  | { readonly type: 'disconnect' }
  /** The agent recorded the call's result (kept in the outbox, saved on the server). */
  | { readonly type: 'dispose'; readonly status: Disposition }
  /** Call Result's SMS button (app-sms): the SMS follow-up without a result. */
  | { readonly type: 'smsChosen' }
  /** Call Result's Retry (app-retry): a new call to the same lead is being placed. */
  | { readonly type: 'retry' }
  /** A line for the agent in the waiting view (Retry's or Check for lead's answer). */
  | { readonly type: 'notice'; readonly text: string }
  /** The agent chose a tag (Tags & Stages). */
  | { readonly type: 'tagChosen' }
  /** The agent skipped Tags & Stages. */
  | { readonly type: 'tagsSkipped' }
  /** The SMS follow-up was sent. */
  | { readonly type: 'smsSent' }
  /** The agent cancelled the SMS follow-up. */
  | { readonly type: 'smsCancelled' }
  /** Thank-you: the agent wants to add a note. */
  | { readonly type: 'addNote' }
  /** Thank-you: the agent is done. */
  | { readonly type: 'done' }
  /** Thank-you after an inbound/listen/whisper call: the 2000 ms auto-reset fired. */
  | { readonly type: 'autoReset' }
  /** The note was saved on the server. */
  | { readonly type: 'saveNote' }
  /** The agent skipped the note. */
  | { readonly type: 'skipNote' }
  /** The call failed (alert 'Connection error code 8'). */
  | { readonly type: 'connectionError' }
  /** The softphone failed (logged; the call state is reset). */
  | { readonly type: 'phoneError' };

/** The name of a {@link ConsoleEvent}. */
export type ConsoleEventType = ConsoleEvent['type'];

const EVENT_TYPE_SET: Record<ConsoleEventType, true> = {
  userMissing: true,
  loggedOut: true,
  incoming: true,
  dial: true,
  accept: true,
  ignore: true,
  cancel: true,
  mute: true,
  hold: true,
  panel: true,
  digit: true,
  digitRefused: true,
  role: true,
  conferenced: true,
  leadAdded: true,
  reconnecting: true,
  reconnected: true,
  qualityWarning: true,
  qualityWarningCleared: true,
  disconnect: true,
  dispose: true,
  smsChosen: true,
  retry: true,
  notice: true,
  tagChosen: true,
  tagsSkipped: true,
  smsSent: true,
  smsCancelled: true,
  addNote: true,
  done: true,
  autoReset: true,
  saveNote: true,
  skipNote: true,
  connectionError: true,
  phoneError: true,
};

/** Every event name. */
export const CONSOLE_EVENT_TYPES = Object.keys(EVENT_TYPE_SET) as readonly ConsoleEventType[];

/** Named, pure conditions a transition may branch on. */
export const CONSOLE_GUARDS = {
  /** The call skips the Call Result view (inbound, listen, whisper). */
  endsInThankyou: (state: ConsoleState) => state.call !== null && endsInThankyou(state.call),
  /** Voicemail or missed, and the agent has the SMS follow-up (app-sms). */
  smsFollowUp: (state: ConsoleState, event: ConsoleEvent) =>
    event.type === 'dispose' &&
    (event.status === 'voicemail' || event.status === 'missed') &&
    state.followUps.sms,
  /** Contacted, on a profile that asks for Tags & Stages (is_deal_whispertext). */
  tagsFollowUp: (state: ConsoleState, event: ConsoleEvent) =>
    event.type === 'dispose' &&
    event.status === 'contacted' &&
    state.call !== null &&
    wantsTags(state.call),
  /** The agent has the SMS follow-up (app-sms). */
  maySms: (state: ConsoleState) => state.followUps.sms,
  /** The agent may Retry (app-retry) and the call has a lead with a number. */
  mayRetry: (state: ConsoleState) =>
    state.followUps.retry && state.call?.call.lead?.phone_number ? true : false,
} as const satisfies Record<string, (state: ConsoleState, event: ConsoleEvent) => boolean>;

/** The name of a {@link CONSOLE_GUARDS} entry. */
export type ConsoleGuard = keyof typeof CONSOLE_GUARDS;

/** One branch of a guarded transition; the first whose guard holds (or has none) wins. */
export interface ConsoleBranch<View extends string> {
  readonly when?: ConsoleGuard;
  readonly to: View;
}

/** Where an event leads: a view, or guarded branches. */
export type ConsoleTarget<View extends string> = View | readonly ConsoleBranch<View>[];

type TransitionTable<View extends string> = {
  readonly [V in View]: { readonly [E in ConsoleEventType]?: ConsoleTarget<NoInfer<View>> };
};

/** Checks at compile time that every target is one of the table's views. */
function defineTransitions<const View extends string>(
  table: TransitionTable<View>,
): TransitionTable<View> {
  return table;
}

const RESETS = {
  connectionError: 'waiting',
  phoneError: 'waiting',
  loggedOut: 'login',
} as const;

/** The console's transition table: view → event → next view (or guarded branches). */
export const CONSOLE_TRANSITIONS = defineTransitions({
  login: {},
  waiting: {
    ...RESETS,
    userMissing: 'login',
    incoming: 'ringing',
    dial: 'dialing',
    notice: 'waiting',
  },
  dialing: {
    ...RESETS,
    qualityWarning: 'dialing',
    qualityWarningCleared: 'dialing',
    accept: 'oncall',
    disconnect: [{ when: 'endsInThankyou', to: 'thankyou' }, { to: 'disposition' }],
  },
  ringing: {
    ...RESETS,
    accept: 'oncall',
    ignore: 'waiting',
    cancel: 'waiting',
    disconnect: 'waiting',
  },
  oncall: {
    ...RESETS,
    mute: 'oncall',
    hold: 'oncall',
    panel: 'oncall',
    digit: 'oncall',
    digitRefused: 'oncall',
    role: 'oncall',
    conferenced: 'oncall',
    leadAdded: 'oncall',
    reconnecting: 'oncall',
    reconnected: 'oncall',
    qualityWarning: 'oncall',
    qualityWarningCleared: 'oncall',
    disconnect: [{ when: 'endsInThankyou', to: 'thankyou' }, { to: 'disposition' }],
  },
  disposition: {
    ...RESETS,
    dispose: [
      { when: 'smsFollowUp', to: 'sms' },
      { when: 'tagsFollowUp', to: 'disposition2' },
      { to: 'thankyou' },
    ],
    smsChosen: [{ when: 'maySms', to: 'sms' }],
    retry: [{ when: 'mayRetry', to: 'waiting' }],
  },
  disposition2: { ...RESETS, tagChosen: 'thankyou', tagsSkipped: 'thankyou' },
  sms: { ...RESETS, smsSent: 'thankyou', smsCancelled: 'thankyou' },
  thankyou: { ...RESETS, addNote: 'note', done: 'waiting', autoReset: 'waiting' },
  note: { ...RESETS, saveNote: 'waiting', skipNote: 'waiting' },
});

/** A view state of the console (spec section 4), derived from the table. */
export type ConsoleView = keyof typeof CONSOLE_TRANSITIONS;

/** Every view state, in table order. */
export const CONSOLE_VIEWS = Object.keys(CONSOLE_TRANSITIONS) as readonly ConsoleView[];

/** The app status (spec section 4): login, waiting, or oncall from answering until cleanup. */
export type AppStatus = 'login' | 'waiting' | 'oncall';

/** The app status of each view. */
export const APP_STATUS_BY_VIEW: Readonly<Record<ConsoleView, AppStatus>> = {
  login: 'login',
  waiting: 'waiting',
  ringing: 'waiting',
  // Not answered yet: the app status becomes oncall when the call is accepted (spec section 4).
  dialing: 'waiting',
  oncall: 'oncall',
  disposition: 'oncall',
  disposition2: 'oncall',
  sms: 'oncall',
  thankyou: 'oncall',
  note: 'oncall',
};

/** The console's whole state. */
export interface ConsoleState {
  readonly view: ConsoleView;
  /** Moves on with every new call and every cleanup; async work tagged with an older one is stale. */
  readonly epoch: number;
  /** The call being handled, from ringing until cleanup. */
  readonly call: ConsoleCall | null;
  /** The banner ('Incoming Lead!', 'Call Ended'…), or none. */
  readonly banner: string | null;
  readonly muted: boolean;
  /** The lead is on hold (the server said so). */
  readonly held: boolean;
  /** The on-call panel open under the controls, if any. */
  readonly panel: OnCallPanel | null;
  /** The digits sent from the keypad on this call, in order. */
  readonly digits: string;
  /** Why the last keypad digit was not sent (the softphone's error), until one is or the panel changes. */
  readonly keypadError: string | null;
  /** Since when the call is reconnecting (injected clock), or null while it is connected. */
  readonly reconnectingSinceMs: number | null;
  /**
   * The softphone's call quality warnings standing now (spec section 9), each once, in the order
   * raised; the on-call view shows their notices (`call-quality.ts`).
   */
  readonly qualityWarnings: readonly string[];
  /** When the call was answered (injected clock), for the call timer; null when not on a call. */
  readonly connectedAtMs: number | null;
  /** Thank-you resets by itself (the call was inbound, listen or whisper). */
  readonly autoReset: boolean;
  /** What the agent may do after this call (SMS, Retry), fixed when it started. */
  readonly followUps: FollowUps;
  /** A line for the agent in the waiting view (Retry's or Check for lead's answer), or none. */
  readonly notice: string | null;
}

/** No call quality warning standing. */
const NO_QUALITY_WARNINGS: readonly string[] = [];

/** A panel the on-call view opens under its controls. */
export type OnCallPanel = 'keypad' | 'transfer' | 'addLead' | 'conference' | 'audio';

/** The state the console starts in (spec section 4: app status starts waiting). */
export const INITIAL_CONSOLE_STATE: ConsoleState = cleanState('waiting', 0);

/** Thrown when an event is sent to a view that does not accept it. */
export class ConsoleTransitionError extends WebError {
  readonly view: ConsoleView;
  readonly event: ConsoleEventType;

  constructor(view: ConsoleView, event: ConsoleEventType) {
    super('IllegalTransitionError', `The console cannot handle "${event}" in the "${view}" view.`);
    this.view = view;
    this.event = event;
  }
}

/**
 * Whether `state` accepts an event named `type`. An event whose branches are all guarded (Retry,
 * SMS) is accepted when one of its guards holds for a bare event of that name.
 */
export function canTransition(state: ConsoleState, type: ConsoleEventType): boolean {
  const target = CONSOLE_TRANSITIONS[state.view][type];
  if (target === undefined) return false;
  if (typeof target === 'string') return true;
  const bare = { type } as ConsoleEvent;
  return target.some((b) => b.when === undefined || CONSOLE_GUARDS[b.when](state, bare));
}

/** The view `event` leads to from `state`; throws {@link ConsoleTransitionError} if refused. */
export function nextView(state: ConsoleState, event: ConsoleEvent): ConsoleView {
  const target = CONSOLE_TRANSITIONS[state.view][event.type];
  if (target === undefined) throw new ConsoleTransitionError(state.view, event.type);
  if (typeof target === 'string') return target;
  const branch = target.find((b) => b.when === undefined || CONSOLE_GUARDS[b.when](state, event));
  if (!branch) throw new ConsoleTransitionError(state.view, event.type);
  return branch.to;
}

/** The state after `event`; throws {@link ConsoleTransitionError} if `state` refuses it. */
export function transition(state: ConsoleState, event: ConsoleEvent): ConsoleState {
  const view = nextView(state, event);
  if (event.type === 'notice') return { ...state, notice: event.text };
  if (view === 'waiting' || view === 'login') return cleanState(view, state.epoch + 1);
  switch (event.type) {
    case 'incoming':
      return {
        ...cleanState(view, state.epoch + 1),
        call: event.call,
        banner: event.banner,
        followUps: event.followUps,
      };
    case 'dial':
      return {
        ...cleanState(view, state.epoch + 1),
        call: event.call,
        banner: DIALING_BANNER,
        followUps: event.followUps,
      };
    case 'accept':
      return {
        ...state,
        view,
        banner: null,
        // Listen, whisper and barge: the timer shows the call's time, not this agent's.
        connectedAtMs: event.atMs - (state.call ? elapsedWhenJoinedMs(state.call) : 0),
        held: state.call?.call.held ?? false,
      };
    case 'mute':
      return state.muted === event.muted ? state : { ...state, muted: event.muted };
    case 'hold':
      return state.held === event.held ? state : { ...state, held: event.held };
    case 'panel':
      return state.panel === event.panel
        ? state
        : { ...state, panel: event.panel, keypadError: null };
    case 'digit':
      return { ...state, digits: state.digits + event.digit, keypadError: null };
    case 'digitRefused':
      return { ...state, keypadError: event.message };
    case 'role':
      return state.call === null || state.call.type === event.role
        ? state
        : { ...state, call: { ...state.call, type: event.role } };
    case 'conferenced':
      // Spec section 7: the conference request succeeded: the panel closes and the call is
      // labelled Conference (the call's type, as the server records it once the agent joins).
      return state.call === null
        ? { ...state, panel: null }
        : {
            ...state,
            panel: null,
            call: { ...state.call, call: { ...state.call.call, type: 'conference' } },
          };
    case 'leadAdded':
      return state.call === null
        ? state
        : {
            ...state,
            panel: state.panel === 'addLead' ? null : state.panel,
            call: {
              ...state.call,
              call: { ...state.call.call, lead: event.lead, lead_id: event.lead.id },
            },
          };
    case 'reconnecting':
      // A second report of the same outage keeps when it began.
      return state.reconnectingSinceMs !== null
        ? state
        : { ...state, reconnectingSinceMs: event.atMs };
    case 'reconnected':
      return state.reconnectingSinceMs === null ? state : { ...state, reconnectingSinceMs: null };
    case 'qualityWarning':
      return state.qualityWarnings.includes(event.name)
        ? state
        : { ...state, qualityWarnings: [...state.qualityWarnings, event.name] };
    case 'qualityWarningCleared':
      return state.qualityWarnings.includes(event.name)
        ? { ...state, qualityWarnings: state.qualityWarnings.filter((n) => n !== event.name) }
        : state;
    case 'disconnect':
      return {
        ...state,
        view,
        banner: CALL_ENDED_BANNER,
        muted: false,
        held: false,
        panel: null,
        reconnectingSinceMs: null,
        qualityWarnings: NO_QUALITY_WARNINGS,
        connectedAtMs: null,
        autoReset: view === 'thankyou',
      };
    default:
      return { ...state, view };
  }
}

function cleanState(view: ConsoleView, epoch: number): ConsoleState {
  return {
    view,
    epoch,
    call: null,
    banner: null,
    muted: false,
    held: false,
    panel: null,
    digits: '',
    keypadError: null,
    reconnectingSinceMs: null,
    qualityWarnings: NO_QUALITY_WARNINGS,
    connectedAtMs: null,
    autoReset: false,
    followUps: NO_FOLLOW_UPS,
    notice: null,
  };
}
