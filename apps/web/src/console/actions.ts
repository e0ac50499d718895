/**
 * Agent commands as action objects: a name, a label, a key binding, a predicate (is it enabled?)
 * and `perform`. Buttons, keyboard shortcuts and tests share these definitions; `perform` only
 * calls the {@link ConsoleCommands}, so the flow stays in the state machine.
 *
 * Keys are chosen so that one key never means two things in views that follow each other
 * (Mute is M on a call, so Missed is N on the Call Result view that follows a hang-up).
 */
import type { Disposition } from '@leadline/contracts';
import {
  answerWord,
  canHoldOrTransfer,
  canMute,
  hasLead,
  showsKeypad,
  type ConsoleCall,
} from './call-rules';
import type { ConsoleCommands } from './console-controller';
import { canTransition, type ConsoleState, type ConsoleView } from './console-machine';

/** A keyboard shortcut. */
export interface KeyBinding {
  /** `KeyboardEvent.key`; letters match either case. */
  readonly key: string;
  /** Needs Ctrl (or ⌘ on macOS). */
  readonly mod?: boolean;
}

/** What an action sees when it is checked or performed. */
export interface ActionContext {
  readonly state: ConsoleState;
  readonly commands: ConsoleCommands;
  /** Text the view holds: the note or the SMS being written. */
  readonly input: ActionInput;
}

/** The text field a view passes to its actions (the note, the SMS). */
export interface ActionInput {
  readonly text: string;
}

/** No text input. */
export const NO_INPUT: ActionInput = { text: '' };

/** How a button of the action looks. */
export type ActionTone = 'accept' | 'danger' | 'primary' | 'secondary' | 'toggle';

/** The name of an agent command. */
export type ActionName =
  | 'accept'
  | 'ignore'
  | 'toggleHold'
  | 'toggleTransfer'
  | 'toggleAddLead'
  | 'toggleKeypad'
  | 'toggleConference'
  | 'toggleAudio'
  | 'toggleMute'
  | 'hangUp'
  | 'cancelDial'
  | 'contacted'
  | 'voicemail'
  | 'missed'
  | 'removed'
  | 'retry'
  | 'chooseSms'
  | 'addNote'
  | 'done'
  | 'skipNote'
  | 'saveNote'
  | 'skipTags'
  | 'sendSms'
  | 'cancelSms';

/** An agent command. */
export interface ConsoleAction {
  readonly name: ActionName;
  /** The view whose buttons and shortcuts include it. */
  readonly view: ConsoleView;
  /** The button text (may follow the state: Mute / Muted). */
  label(state: ConsoleState): string;
  readonly key: KeyBinding;
  readonly tone: ActionTone;
  /** For a toggle: whether it is on (`aria-pressed`). */
  pressed?(state: ConsoleState): boolean;
  /**
   * Whether its button is shown at all in its view (default: always). Hidden means not
   * runnable either: the predicate includes the same rule, so its shortcut does nothing.
   */
  visible?(state: ConsoleState): boolean;
  /** Whether it can run now. */
  predicate(context: ActionContext): boolean;
  /** Runs it; a promise when it waits for the server. */
  perform(context: ActionContext): void | Promise<void>;
}

/** On a call whose rules allow `rule` (a call-rules.ts predicate). */
const onCallWhere =
  (rule: (call: ConsoleCall) => boolean) =>
  (state: ConsoleState): boolean =>
    state.view === 'oncall' && state.call !== null && rule(state.call);

const inView =
  (view: ConsoleView) =>
  ({ state }: ActionContext): boolean =>
    state.view === view;

function dispositionAction(status: Disposition, label: string, key: string): ConsoleAction {
  return {
    name: status,
    view: 'disposition',
    label: () => label,
    key: { key },
    tone: 'secondary',
    predicate: inView('disposition'),
    perform: ({ commands }) => commands.dispose(status),
  };
}

/** Every agent command, in the order the buttons appear. */
export const CONSOLE_ACTIONS: readonly ConsoleAction[] = [
  {
    // Accept or Call by the call's kind (answerWord); one shortcut for both.
    name: 'accept',
    view: 'ringing',
    label: (state) => answerWord(state.call),
    key: { key: 'a' },
    tone: 'accept',
    predicate: inView('ringing'),
    perform: ({ commands }) => commands.accept(),
  },
  {
    name: 'ignore',
    view: 'ringing',
    label: () => 'Ignore',
    key: { key: 'i' },
    tone: 'secondary',
    predicate: inView('ringing'),
    perform: ({ commands }) => commands.ignore(),
  },
  {
    // O: H is Hang Up (h-O-ld).
    name: 'toggleHold',
    view: 'oncall',
    label: (state) => (state.held ? 'Resume' : 'Hold'),
    key: { key: 'o' },
    tone: 'toggle',
    pressed: (state) => state.held,
    visible: onCallWhere(canHoldOrTransfer),
    predicate: ({ state }) => onCallWhere(canHoldOrTransfer)(state),
    // Not awaited: Hang Up must stay usable while the server answers.
    perform: ({ commands }) => void commands.toggleHold(),
  },
  {
    name: 'toggleTransfer',
    view: 'oncall',
    label: () => 'Transfer',
    key: { key: 't' },
    tone: 'toggle',
    pressed: (state) => state.panel === 'transfer',
    visible: onCallWhere(canHoldOrTransfer),
    predicate: ({ state }) => onCallWhere(canHoldOrTransfer)(state),
    perform: ({ commands }) => commands.togglePanel('transfer'),
  },
  {
    name: 'toggleAddLead',
    view: 'oncall',
    label: () => 'Add Lead',
    key: { key: 'l' },
    tone: 'toggle',
    pressed: (state) => state.panel === 'addLead',
    visible: onCallWhere((call) => !hasLead(call)),
    predicate: ({ state }) => onCallWhere((call) => !hasLead(call))(state),
    perform: ({ commands }) => commands.togglePanel('addLead'),
  },
  {
    name: 'toggleKeypad',
    view: 'oncall',
    label: () => 'Keypad',
    key: { key: 'k' },
    tone: 'toggle',
    pressed: (state) => state.panel === 'keypad',
    visible: onCallWhere(showsKeypad),
    predicate: ({ state }) => onCallWhere(showsKeypad)(state),
    perform: ({ commands }) => commands.togglePanel('keypad'),
  },
  {
    // F: C is Contacted on the Call Result view that follows.
    name: 'toggleConference',
    view: 'oncall',
    label: () => 'Conference',
    key: { key: 'f' },
    tone: 'toggle',
    pressed: (state) => state.panel === 'conference',
    visible: onCallWhere(showsKeypad),
    predicate: ({ state }) => onCallWhere(showsKeypad)(state),
    perform: ({ commands }) => commands.togglePanel('conference'),
  },
  {
    // G: the microphone, speaker and ringer, mid-call (a headset plugged in during the call).
    name: 'toggleAudio',
    view: 'oncall',
    label: () => 'Audio',
    key: { key: 'g' },
    tone: 'toggle',
    pressed: (state) => state.panel === 'audio',
    predicate: inView('oncall'),
    perform: ({ commands }) => commands.togglePanel('audio'),
  },
  {
    name: 'toggleMute',
    view: 'oncall',
    label: (state) => (state.muted ? 'Muted' : 'Mute'),
    key: { key: 'm' },
    tone: 'toggle',
    pressed: (state) => state.muted,
    predicate: ({ state }) => state.view === 'oncall' && state.call !== null && canMute(state.call),
    perform: ({ commands }) => commands.toggleMute(),
  },
  {
    name: 'hangUp',
    view: 'oncall',
    label: () => 'Hang Up',
    key: { key: 'h' },
    tone: 'danger',
    predicate: inView('oncall'),
    perform: ({ commands }) => commands.hangUp(),
  },
  {
    // Escape, not H: Hang Up on the call that follows is H, and one key means one thing.
    name: 'cancelDial',
    view: 'dialing',
    label: () => 'Hang Up',
    key: { key: 'Escape' },
    tone: 'danger',
    predicate: inView('dialing'),
    perform: ({ commands }) => commands.hangUp(),
  },
  dispositionAction('contacted', 'Contacted', 'c'),
  dispositionAction('voicemail', 'Voicemail', 'v'),
  dispositionAction('missed', 'Missed', 'n'),
  dispositionAction('removed', 'Remove', 'r'),
  {
    // Y: R is Remove, T is Transfer on the call before.
    name: 'retry',
    view: 'disposition',
    label: () => 'Retry',
    key: { key: 'y' },
    tone: 'secondary',
    visible: (state) => state.view === 'disposition' && canTransition(state, 'retry'),
    predicate: ({ state }) => state.view === 'disposition' && canTransition(state, 'retry'),
    perform: ({ commands }) => commands.retry(),
  },
  {
    name: 'chooseSms',
    view: 'disposition',
    label: () => 'SMS',
    key: { key: 's' },
    tone: 'secondary',
    visible: (state) => state.view === 'disposition' && canTransition(state, 'smsChosen'),
    predicate: ({ state }) => state.view === 'disposition' && canTransition(state, 'smsChosen'),
    perform: ({ commands }) => commands.chooseSms(),
  },
  {
    name: 'addNote',
    view: 'thankyou',
    label: () => 'Add Note',
    key: { key: 'a' },
    tone: 'secondary',
    predicate: inView('thankyou'),
    perform: ({ commands }) => commands.addNote(),
  },
  {
    name: 'done',
    view: 'thankyou',
    label: () => 'Done',
    key: { key: 'd' },
    tone: 'primary',
    predicate: inView('thankyou'),
    perform: ({ commands }) => commands.done(),
  },
  {
    name: 'skipNote',
    view: 'note',
    label: () => 'Skip',
    key: { key: 's' },
    tone: 'secondary',
    predicate: inView('note'),
    perform: ({ commands }) => commands.skipNote(),
  },
  {
    name: 'saveNote',
    view: 'note',
    label: () => 'Save',
    key: { key: 'Enter', mod: true },
    tone: 'primary',
    predicate: ({ state, input }) => state.view === 'note' && input.text.trim() !== '',
    perform: ({ commands, input }) => commands.saveNote(input.text.trim()),
  },
  {
    // Escape: S is SMS on the Call Result view before.
    name: 'skipTags',
    view: 'disposition2',
    label: () => 'Skip',
    key: { key: 'Escape' },
    tone: 'secondary',
    predicate: inView('disposition2'),
    perform: ({ commands }) => commands.skipTags(),
  },
  {
    name: 'sendSms',
    view: 'sms',
    label: () => 'Send',
    key: { key: 'Enter', mod: true },
    tone: 'primary',
    predicate: ({ state, input }) => state.view === 'sms' && input.text.trim() !== '',
    perform: ({ commands, input }) => commands.sendSms(input.text.trim()),
  },
  {
    name: 'cancelSms',
    view: 'sms',
    label: () => 'Cancel',
    key: { key: 'Escape' },
    tone: 'secondary',
    predicate: inView('sms'),
    perform: ({ commands }) => commands.cancelSms(),
  },
];

/** The action called `name`. */
export function getAction(name: ActionName): ConsoleAction {
  const action = CONSOLE_ACTIONS.find((a) => a.name === name);
  if (!action) throw new Error(`no action ${name}`);
  return action;
}

/** The actions of `view`, in button order. */
export function actionsOf(view: ConsoleView): readonly ConsoleAction[] {
  return CONSOLE_ACTIONS.filter((a) => a.view === view);
}

/** The parts of a keyboard event a shortcut looks at. */
export interface KeyPress {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly repeat: boolean;
  readonly target: EventTarget | null;
}

/**
 * Whether `press` triggers `binding`. A held key (repeat) never does, and a plain character key
 * does not while the agent is typing in a text field.
 */
export function matchesKey(binding: KeyBinding, press: KeyPress): boolean {
  if (press.repeat || press.altKey) return false;
  if (Boolean(binding.mod) !== (press.ctrlKey || press.metaKey)) return false;
  if (press.key.toLowerCase() !== binding.key.toLowerCase()) return false;
  return binding.mod === true || binding.key.length > 1 || !isTextEntry(press.target);
}

/** The first action among `actions` that `press` triggers and that can run now. */
export function actionForKey(
  actions: readonly ConsoleAction[],
  press: KeyPress,
  context: ActionContext,
): ConsoleAction | undefined {
  return actions.find((a) => matchesKey(a.key, press) && a.predicate(context));
}

/** The shortcut as shown to people: `A`, `Ctrl+Enter`. */
export function keyHint(binding: KeyBinding): string {
  const key = binding.key.length === 1 ? binding.key.toUpperCase() : binding.key;
  return binding.mod ? `Ctrl+${key}` : key;
}

/** The shortcut in `aria-keyshortcuts` syntax. */
export function ariaKeyShortcuts(binding: KeyBinding): string {
  return binding.mod ? `Control+${binding.key} Meta+${binding.key}` : binding.key;
}

function isTextEntry(target: EventTarget | null): boolean {
  if (typeof HTMLElement === 'undefined' || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}
