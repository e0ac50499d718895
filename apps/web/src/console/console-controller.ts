/**
 * The console's glue: it owns the {@link ConsoleState} (changed only through the pure
 * {@link transition}), the softphone device it creates through the injected {@link PhoneFactory},
 * and the effects of each transition (answering, releasing and muting the call, the auto-reset
 * timer). Phone events become console events; agent commands ({@link ConsoleCommands}) are what
 * the action objects perform. React subscribes with `useSyncExternalStore`.
 *
 * Async work is tagged: device events with the phone session they belong to, call events with the
 * call's identity, server answers with the console epoch; stale results are dropped.
 */
import type {
  CallType,
  CallUserResponse,
  SoftphoneSettings,
  Disposition,
  Lead,
  NoteBody,
  OutboundCallBody,
  OutboundCallResponse,
  RetryCallBody,
  User,
} from '@leadline/contracts';
import {
  AUTO_RESET_AFTER_CALL_MS,
  CONNECTION_ERROR_ALERT,
  CHECK_FOR_LEAD_RANG,
  MICROPHONE_ERROR_ALERT,
  NETWORK_TEST_ERRORS,
} from '../constants';
import { WebError, errorMessage } from '../errors';
import { ErrorLog } from './error-log';
import { qualityWarningLogLine } from './call-quality';
import { phoneErrorPolicy, phoneErrorText } from '../phone/phone-errors';
import { applyRememberedAudioDevices } from '../phone/audio-devices';
import type {
  PhoneAudio,
  PhoneCall,
  PhoneCallParameters,
  PhoneConnectParams,
  PhoneDevice,
  PhoneCallWarningData,
  PhoneCallWarningName,
  PhoneError,
  PhoneFactory,
} from '../phone/phone-port';
import type { KeyValueStorage } from '../platform/key-value-storage';
import type { Clock, Logger, TimerHandle, Timers } from '../platform/platform';
import {
  followUpsOf,
  incomingBanner,
  parseCallUserId,
  retryableLead,
  shouldAutoAccept,
  type ConsoleCall,
} from './call-rules';
import {
  outboundCallBody,
  outboundConnectParams,
  outboundConsoleCall,
  type PlaceCallRequest,
} from './outbound-call';
import {
  INITIAL_CONSOLE_STATE,
  canTransition,
  transition,
  type ConsoleEvent,
  type ConsoleState,
  type ConsoleView,
  type OnCallPanel,
} from './console-machine';

/** The keys of the keypad panel, in its order. */
export const KEYPAD_DIGITS: readonly string[] = [
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
  '*',
  '0',
  '#',
];

/** Views after a call, from which returning to waiting ends the agent's wrap-up. */
const AFTER_CALL_VIEWS: ReadonlySet<ConsoleView> = new Set(['thankyou', 'note']);

/** The server calls the controller makes. */
export interface ConsoleApi {
  /** The softphone settings of the loaded user (which SDK, the sound URLs). */
  readonly softphone: SoftphoneSettings;
  getToken(first: boolean): Promise<string>;
  getCallUser(callUserId: number): Promise<CallUserResponse>;
  rejectCall(callId: number): Promise<void>;
  /**
   * `POST /twilio/debug/webrtc` (spec section 7): sent when the console hung up a call whose
   * connection did not close, with the user and the connection's status.
   */
  reportUnclosedConnection(body: { user: number; conn_status: string }): Promise<void>;
  /** Retry: the server calls the lead again (`POST /api/v1/calls/twilio`); throws its `error`. */
  retryCall(body: RetryCallBody): Promise<void>;
  /** Check for lead (`POST /apps/webrtc/check`); throws with the server's `error` (no lead). */
  checkForLead(): Promise<void>;
  placeOutboundCall(body: OutboundCallBody): Promise<OutboundCallResponse>;
  /** Puts the call's lead on hold (`held`) or takes it off. */
  setHold(callId: number, held: boolean): Promise<void>;
  /** Ends this session, or with `everywhere` every session of the user. */
  logout(options?: { everywhere?: boolean }): Promise<void>;
}

/**
 * The after-call writes. In the app each resolves once the write is kept (the outbox holds it
 * until the server has it, `kept-writes.ts`), not when the server answers: the agent moves on
 * meanwhile. The API client does them directly (tests).
 */
export interface AfterCallWrites {
  setDisposition(callId: number, status: Disposition): Promise<void>;
  /** Tags & Stages: the call's tag (`POST /apps/webrtc/{id}/disposition2`). */
  setTag(callId: number, key: string): Promise<void>;
  addNote(body: NoteBody): Promise<void>;
  /**
   * The SMS follow-up: resolves `sent` when the server sent it, `queued` when it is kept for a
   * later try (offline); throws with the server's `error` when the server refused it.
   */
  sendSms(callId: number, smsbody: string): Promise<'sent' | 'queued'>;
  /**
   * The agent is done with the call: their wrap-up ends and the next lead may ring. Kept like
   * the others, after them: an agent who pressed Done during an outage is ready once it ends.
   */
  endWrapUp(): Promise<void>;
}

/** What the controller is given. */
export interface ConsoleControllerOptions {
  readonly api: ConsoleApi;
  /** The after-call writes (the outbox in the app; the API client itself in tests). */
  readonly writes: AfterCallWrites;
  readonly phoneFactory: PhoneFactory;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly log: Logger;
  /** `window.alert`. */
  readonly alert: (message: string) => void;
  /**
   * Where this browser remembers the chosen audio devices: they are applied when the phone
   * registers and again when devices change (a headset plugged back in is used again).
   */
  readonly audioStorage?: KeyValueStorage;
  /**
   * The console runs in the desktop wrapper (Electron): outbound calls say `interface: 'desktop'`.
   */
  readonly desktop?: boolean;
  /** Loads a call user (defaults to `api.getCallUser`; the app routes it through its query cache). */
  readonly loadCallUser?: (callUserId: number) => Promise<CallUserResponse>;
}

/**
 * The softphone as the agent sees it: `idle` (no user), `connecting` (token, register),
 * `ready` (registered), `offline` (registration lost), `unavailable` (could not be created).
 */
export type PhoneStatus = 'idle' | 'connecting' | 'ready' | 'offline' | 'unavailable';

/** What React renders. */
export interface ConsoleSnapshot {
  readonly console: ConsoleState;
  readonly phone: PhoneStatus;
}

/** Live volume levels of the call, each 0..1. */
export interface VolumeLevels {
  readonly input: number;
  readonly output: number;
}

const SILENCE: VolumeLevels = { input: 0, output: 0 };

/** Views during which a softphone call is live. */
const LIVE_VIEWS: ReadonlySet<ConsoleView> = new Set(['ringing', 'dialing', 'oncall']);

/** The agent commands the action objects perform. */
export interface ConsoleCommands {
  /** Answers the ringing call. */
  accept(): void;
  /** Declines the ringing call and tells the server. */
  ignore(): void;
  /** Mutes or unmutes the microphone. */
  toggleMute(): void;
  /** Puts the lead on hold, or resumes (the server does it; a failure is only logged). */
  toggleHold(): Promise<void>;
  /** Opens `panel` under the on-call controls, or closes it when it is open. */
  togglePanel(panel: OnCallPanel): void;
  /** Sends one keypad digit (0-9, *, #) on the call. */
  sendDigit(digit: string): void;
  /** Hangs up (on a call, or while dialing). */
  hangUp(): void;
  /** Saves the call's result, then moves on. */
  dispose(status: Disposition): Promise<void>;
  /** Opens the note view. */
  addNote(): void;
  /** Finishes with the call. */
  done(): void;
  /** Saves the note, then moves on. */
  saveNote(content: string): Promise<void>;
  /** Leaves the note view without a note. */
  skipNote(): void;
  /** Leaves Tags & Stages without a tag. */
  skipTags(): void;
  /** Tags & Stages: records the tag `key`, then moves on. */
  chooseTag(key: string): Promise<void>;
  /** Call Result's SMS: the SMS follow-up without a result. */
  chooseSms(): void;
  /** Sends the SMS follow-up; throws with the server's refusal (the view stays). */
  sendSms(text: string): Promise<void>;
  /** Leaves the SMS view without sending. */
  cancelSms(): void;
  /** Call Result's Retry: back to waiting while the server calls the lead again. */
  retry(): Promise<void>;
  /** Waiting: asks the server for a lead that is waiting; the answer becomes the notice. */
  checkForLead(): Promise<void>;
}

/** See the module comment. */
export class ConsoleController implements ConsoleCommands {
  readonly #options: ConsoleControllerOptions;
  readonly #writes: AfterCallWrites;
  #snapshot: ConsoleSnapshot = { console: INITIAL_CONSOLE_STATE, phone: 'idle' };
  readonly #listeners = new Set<() => void>();
  #volume: VolumeLevels = SILENCE;
  readonly #volumeListeners = new Set<() => void>();
  /** The timestamped error log (Settings' Copy Error Logs subscribes to it). */
  readonly errors: ErrorLog;

  /** Attempt id of the phone session; bumps on start and stop. */
  #session = 0;
  #tokenRequest = 0;
  #user: User | null = null;
  #device: PhoneDevice | null = null;
  /** A call that rang and whose call user is still loading. */
  #pendingCall: PhoneCall | null = null;
  /**
   * The call user of the latest ring seen at the socket (`invite`), loading since then: the
   * call that follows (`incoming`, same call sid) takes it instead of loading it again.
   */
  #announced: { callSid: string; callUserId: number; loaded: Promise<CallUserResponse> } | null =
    null;
  /** The call shown in ringing/oncall. */
  #activeCall: PhoneCall | null = null;
  /** The network test's call (Settings), which the console does not show. */
  #testCall: PhoneCall | null = null;
  readonly #detachers = new Map<PhoneCall, () => void>();
  #autoResetTimer: TimerHandle | null = null;

  constructor(options: ConsoleControllerOptions) {
    this.#options = options;
    this.#writes = options.writes;
    this.errors = new ErrorLog(options.clock, options.log);
  }

  /** The current snapshot (stable between changes). */
  readonly getSnapshot = (): ConsoleSnapshot => this.#snapshot;

  /** Subscribes to snapshot changes; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current volume levels (stable between changes). */
  readonly getVolume = (): VolumeLevels => this.#volume;

  /** Subscribes to volume changes (about every 50 ms on a call). */
  readonly subscribeVolume = (listener: () => void): (() => void) => {
    this.#volumeListeners.add(listener);
    return () => this.#volumeListeners.delete(listener);
  };

  /** The console state. */
  get state(): ConsoleState {
    return this.#snapshot.console;
  }

  /** The phone's audio devices (Settings), while the phone is ready; null otherwise. */
  get audio(): PhoneAudio | null {
    return this.#snapshot.phone === 'ready' ? (this.#device?.audio ?? null) : null;
  }

  /** Timestamped error lines, oldest first (for "Copy Error Logs"). */
  get errorLog(): readonly string[] {
    return this.errors.getSnapshot();
  }

  /** Applies `event`; throws `ConsoleTransitionError` if the current view refuses it. */
  send(event: ConsoleEvent): void {
    const previous = this.#snapshot.console;
    const next = transition(previous, event);
    if (next === previous) return;
    this.#snapshot = { ...this.#snapshot, console: next };
    this.#afterTransition(previous, next);
    this.#notify();
  }

  /** The user fetch found no session: show the login view. */
  userMissing(): void {
    if (canTransition(this.state, 'userMissing')) this.send({ type: 'userMissing' });
  }

  /** Fetches a token, creates the device and registers it for `user`. */
  startPhone(user: User): void {
    const session = ++this.#session;
    this.#user = user;
    this.#setPhone('connecting');
    void this.#connect(session);
  }

  /** Destroys the device; events of the old session are dropped. */
  stopPhone(): void {
    this.#session += 1;
    this.#user = null;
    this.#announced = null;
    const pending = this.#pendingCall;
    this.#pendingCall = null;
    if (pending) this.#release(pending);
    const device = this.#device;
    this.#device = null;
    if (device) {
      try {
        device.destroy();
      } catch (error) {
        this.#logError('destroying the softphone failed', error);
      }
    }
    this.#setPhone('idle');
  }

  /**
   * Logs out: resets to the login view, destroys the device and ends the server session (with
   * `everywhere`, every session of the user: its other browsers go to the login view too).
   */
  async logout(options: { everywhere?: boolean } = {}): Promise<void> {
    if (canTransition(this.state, 'loggedOut')) this.send({ type: 'loggedOut' });
    this.stopPhone();
    await this.#options.api.logout(options);
  }

  accept(): void {
    this.send({ type: 'accept', atMs: this.#options.clock.now() });
  }

  ignore(): void {
    const callId = this.state.call?.call.id;
    this.send({ type: 'ignore' });
    if (callId !== undefined) {
      this.#options.api.rejectCall(callId).catch((error: unknown) => {
        this.#logError(`telling the server call ${callId} was ignored failed`, error);
      });
    }
  }

  toggleMute(): void {
    this.send({ type: 'mute', muted: !this.state.muted });
  }

  hangUp(): void {
    const { view, call } = this.state;
    this.send({ type: 'disconnect' });
    if (view === 'dialing' && call) {
      // A New Call hung up before it connected: the server withdraws it at once, so the agent
      // is not kept out of routing until its connect timeout (a connected call is ended by the
      // softphone's hang-up, and the server answers this with nothing to do).
      this.#options.api.rejectCall(call.call.id).catch((error: unknown) => {
        this.#logError(`withdrawing outbound call ${call.call.id} failed`, error);
      });
    }
  }

  async toggleHold(): Promise<void> {
    const { epoch, call } = this.#requireCall('hold');
    const held = !this.state.held;
    try {
      await this.#options.api.setHold(call.call.id, held);
    } catch (error) {
      // Section 8: logged to the console only; the button keeps the true state.
      this.#logError(`${held ? 'holding' : 'resuming'} call ${call.call.id} failed`, error);
      return;
    }
    this.#sendIfCurrent(epoch, { type: 'hold', held });
  }

  togglePanel(panel: OnCallPanel): void {
    this.send({ type: 'panel', panel: this.state.panel === panel ? null : panel });
  }

  /** The server moved this supervisor to `role` on the call (listen, whisper, barge). */
  roleChanged(role: CallType): void {
    this.#sendIfAllowed({ type: 'role', role });
  }

  /**
   * The server took the agent's request to add another agent to the call (Conference): the
   * panel closes and the call is labelled Conference (spec section 7).
   */
  conferenced(): void {
    this.#sendIfAllowed({ type: 'conferenced' });
  }

  /** A lead added to the call answered (Add Lead): the lead card fills in. */
  leadAdded(lead: Lead): void {
    this.#sendIfAllowed({ type: 'leadAdded', lead });
  }

  sendDigit(digit: string): void {
    if (!KEYPAD_DIGITS.includes(digit) || this.state.view !== 'oncall') return;
    const call = this.#activeCall;
    if (!call) return;
    // Both SDKs refuse a digit they cannot send (signalling down, spec section 8) by emitting a
    // 31005 on the call during sendDigits, an error the console otherwise ignores (31005 and
    // 31009): caught here, the digit is not listed as sent and the keypad says why.
    const refusals: PhoneError[] = [];
    const onRefused = (error: PhoneError) => void refusals.push(error);
    call.on('error', onRefused);
    try {
      // The SDK paces the digits (200 ms apart) and plays each one's tone locally.
      call.sendDigits(digit);
    } catch (error) {
      // Never the digit itself (card numbers, PINs are keyed here).
      this.#logError('sending a keypad digit failed', error);
      return;
    } finally {
      call.off('error', onRefused);
    }
    const [refused] = refusals;
    if (refused) {
      this.#logPhoneError('call', refused);
      this.send({ type: 'digitRefused', message: phoneErrorText(refused) });
      return;
    }
    this.send({ type: 'digit', digit });
  }

  async dispose(status: Disposition): Promise<void> {
    const { epoch, call } = this.#requireCall('dispose');
    await this.#writes.setDisposition(call.call.id, status);
    this.#sendIfCurrent(epoch, { type: 'dispose', status });
  }

  addNote(): void {
    this.send({ type: 'addNote' });
  }

  done(): void {
    this.send({ type: 'done' });
  }

  async saveNote(content: string): Promise<void> {
    const { epoch, call } = this.#requireCall('saveNote');
    await this.#writes.addNote({ content, call_id: call.call.id });
    this.#sendIfCurrent(epoch, { type: 'saveNote' });
  }

  skipNote(): void {
    this.send({ type: 'skipNote' });
  }

  skipTags(): void {
    this.send({ type: 'tagsSkipped' });
  }

  async chooseTag(key: string): Promise<void> {
    const { epoch, call } = this.#requireCall('tagChosen');
    await this.#writes.setTag(call.call.id, key);
    this.#sendIfCurrent(epoch, { type: 'tagChosen' });
  }

  chooseSms(): void {
    this.send({ type: 'smsChosen' });
  }

  async sendSms(text: string): Promise<void> {
    const { epoch, call } = this.#requireCall('smsSent');
    // A refusal throws: the view keeps the text and shows the server's error.
    await this.#writes.sendSms(call.call.id, text);
    this.#sendIfCurrent(epoch, { type: 'smsSent' });
  }

  cancelSms(): void {
    this.send({ type: 'smsCancelled' });
  }

  async retry(): Promise<void> {
    const { call } = this.#requireCall('retry');
    const lead = retryableLead(call);
    if (!lead) return;
    // To waiting first: the new call rings this agent, possibly before the server answers.
    this.send({ type: 'retry' });
    const epoch = this.state.epoch;
    try {
      await this.#options.api.retryCall({
        fname: lead.fname,
        lname: lead.lname,
        phone_number: lead.phone_number,
      });
    } catch (error) {
      this.#logError(`retrying lead ${lead.id} failed`, error);
      this.#sendIfCurrent(epoch, { type: 'notice', text: errorMessage(error) });
      // The retry would have ended the wrap-up; the agent is back in waiting either way, so
      // the next lead may ring them (kept until the server has it, like Done).
      this.#writes.endWrapUp().catch((failure: unknown) => {
        this.#logError('ending the wrap-up failed', failure);
      });
    }
  }

  async checkForLead(): Promise<void> {
    if (this.state.view !== 'waiting') return;
    const epoch = this.state.epoch;
    let text = CHECK_FOR_LEAD_RANG;
    try {
      await this.#options.api.checkForLead();
    } catch (error) {
      text = errorMessage(error);
    }
    // A lead that rang moved the console on; the notice is for the waiting view only.
    this.#sendIfCurrent(epoch, { type: 'notice', text });
  }

  /**
   * New Call (spec sections 4 and 7): asks the server to place the call, then shows `dialing`
   * and has the softphone connect with the answer's `call_user_id` and `To` (and the chosen
   * caller id). Throws — for the panel's banner — when the phone is not ready, the agent is busy,
   * or the server refuses (its `error` text). The call opens when the far end answers (`accept`).
   */
  async placeCall(request: PlaceCallRequest): Promise<void> {
    const user = this.#user;
    const device = this.#device;
    if (!user || !device || this.#snapshot.phone !== 'ready') {
      throw new WebError(
        'PhoneNotReadyError',
        'The phone is not connected yet. Wait for "Phone ready" and try again.',
      );
    }
    this.#requireIdle();
    const session = this.#session;
    const epoch = this.state.epoch;
    const answer = await this.#options.api.placeOutboundCall(
      outboundCallBody(request, user, this.#options.desktop ?? false),
    );
    if (session !== this.#session || epoch !== this.state.epoch) {
      // A lead rang or the agent logged out meanwhile; the server's call is left unplaced.
      this.#options.log.info(
        `Dropped outbound call user ${answer.call_user_id}: the console moved on.`,
      );
      return;
    }
    this.#requireIdle();
    this.send({
      type: 'dial',
      call: outboundConsoleCall(answer),
      followUps: followUpsOf(user.permissions),
    });
    // This dial is current while the console is still dialing in the epoch `dial` started.
    const dialEpoch = this.state.epoch;
    const stillDialing = () =>
      session === this.#session && this.state.epoch === dialEpoch && this.state.view === 'dialing';
    let call: PhoneCall;
    try {
      call = await device.connect(outboundConnectParams(answer, request.callerId));
    } catch (error) {
      this.#logError(`placing outbound call ${answer.call.id} failed`, error);
      if (!stillDialing()) return;
      this.#options.alert(CONNECTION_ERROR_ALERT);
      this.#sendIfAllowed({ type: 'connectionError' });
      return;
    }
    if (!stillDialing()) {
      // The agent hung up (or the session ended) while the softphone was creating the call.
      this.#release(call);
      return;
    }
    this.#activeCall = call;
    this.#wireCall(call, session);
  }

  /**
   * The network test's call (Settings, issue 17): places a call with the server's connect params
   * (`POST /api/v1/network-test`) on the phone and hands it to the caller, who measures and ends
   * it. Only while the console waits for a lead with the phone ready and no call ringing; throws
   * otherwise. The console shows nothing of it, and New Call is refused while it is live. No
   * lead rings meanwhile: the server holds the agent back from routing until the test ends.
   */
  async placeNetworkTestCall(params: PhoneConnectParams): Promise<PhoneCall> {
    const device = this.#device;
    if (
      !device ||
      this.#snapshot.phone !== 'ready' ||
      this.state.view !== 'waiting' ||
      this.#pendingCall ||
      this.#activeCall ||
      this.#networkTestLive()
    ) {
      throw new WebError('NetworkTestRefusedError', NETWORK_TEST_ERRORS.notWaiting);
    }
    const session = this.#session;
    const call = await device.connect(params);
    if (session !== this.#session) {
      this.#release(call);
      throw new WebError('NetworkTestRefusedError', NETWORK_TEST_ERRORS.notWaiting);
    }
    this.#testCall = call;
    return call;
  }

  /** Whether the network test's call is still up. */
  #networkTestLive(): boolean {
    return this.#testCall !== null && this.#testCall.status() !== 'closed';
  }

  // ---- effects -------------------------------------------------------------------------------

  #afterTransition(previous: ConsoleState, next: ConsoleState): void {
    if (LIVE_VIEWS.has(previous.view) && !LIVE_VIEWS.has(next.view)) {
      // The call is over for the console: hang it up (or decline it) if it is still live.
      const call = this.#activeCall;
      this.#activeCall = null;
      this.#setVolume(SILENCE);
      if (call) this.#release(call);
    }
    if (previous.view === 'ringing' && next.view === 'oncall') this.#answer();
    if (next.view === 'oncall' && previous.muted !== next.muted) this.#applyMute(next.muted);
    if (
      previous.epoch !== next.epoch ||
      (previous.view === 'thankyou' && next.view !== 'thankyou')
    ) {
      this.#clearAutoReset();
    }
    if (next.view === 'thankyou' && next.autoReset && previous.view !== 'thankyou') {
      this.#scheduleAutoReset(next.epoch);
    }
    if (AFTER_CALL_VIEWS.has(previous.view) && next.view === 'waiting') {
      // Done (or the note saved or skipped, or the auto-reset): the server routes leads to the
      // agent again.
      this.#writes.endWrapUp().catch((error: unknown) => {
        this.#logError('ending the wrap-up failed', error);
      });
    }
  }

  #answer(): void {
    const call = this.#activeCall;
    if (!call) return;
    try {
      call.accept();
    } catch (error) {
      this.#logError('answering the call failed', error);
      this.#sendIfAllowed({ type: 'phoneError' });
    }
  }

  #applyMute(muted: boolean): void {
    const call = this.#activeCall;
    try {
      // The change may have come from the call itself.
      if (call && call.isMuted() !== muted) call.mute(muted);
    } catch (error) {
      this.#logError('muting the call failed', error);
    }
  }

  #scheduleAutoReset(epoch: number): void {
    this.#autoResetTimer = this.#options.timers.setTimeout(() => {
      this.#autoResetTimer = null;
      if (this.state.view === 'thankyou') this.#sendIfCurrent(epoch, { type: 'autoReset' });
    }, AUTO_RESET_AFTER_CALL_MS);
  }

  #clearAutoReset(): void {
    if (this.#autoResetTimer === null) return;
    this.#options.timers.clearTimeout(this.#autoResetTimer);
    this.#autoResetTimer = null;
  }

  /** Stops listening to `call` and ends it if it is still live. */
  #release(call: PhoneCall): void {
    this.#detachers.get(call)?.();
    this.#detachers.delete(call);
    try {
      const status = call.status();
      if (status === 'pending') call.reject();
      else if (status !== 'closed') {
        call.disconnect();
        const after = call.status();
        if (after !== 'closed') this.#reportUnclosed(after);
      }
    } catch (error) {
      this.#logError('ending the call failed', error);
    }
  }

  /** Tells the server a hung-up connection did not close (spec section 7's debug report). */
  #reportUnclosed(status: string): void {
    const user = this.#user?.id;
    if (user === undefined) return;
    this.#options.api
      .reportUnclosedConnection({ user, conn_status: status })
      .catch((error: unknown) => this.#logError('reporting an unclosed connection failed', error));
  }

  // ---- phone session ------------------------------------------------------------------------

  async #connect(session: number): Promise<void> {
    let device: PhoneDevice;
    try {
      const token = await this.#options.api.getToken(true);
      if (session !== this.#session) return;
      device = await this.#options.phoneFactory(token, this.#options.api.softphone);
    } catch (error) {
      if (session !== this.#session) return;
      this.#logError('the softphone could not be started', error);
      this.#setPhone('unavailable');
      return;
    }
    if (session !== this.#session) {
      device.destroy();
      return;
    }
    this.#device = device;
    this.#wireDevice(device, session);
    try {
      await device.register();
    } catch (error) {
      if (session !== this.#session) return;
      this.#logError('registering the softphone failed', error);
      this.#setPhone('offline');
    }
  }

  #wireDevice(device: PhoneDevice, session: number): void {
    const current = () => session === this.#session;
    device.on('registered', () => {
      if (!current()) return;
      this.#setPhone('ready');
      void this.#restoreAudioDevices(device, session);
    });
    device.audio.on('deviceChange', () => {
      if (current()) void this.#restoreAudioDevices(device, session);
    });
    device.on('unregistered', () => {
      if (!current()) return;
      this.#setPhone('offline');
      // Accounts exempt from automatic token re-fetch (the 781 behaviour) register again with
      // the token they have.
      void this.#refreshToken(session, true, !this.#user?.settings.no_token_refetch);
    });
    device.on('invite', (parameters) => {
      if (current()) this.#onInvite(parameters);
    });
    device.on('incoming', (call) => {
      if (current()) void this.#onIncoming(call, session);
    });
    device.on('tokenWillExpire', () => {
      if (current() && !this.#user?.settings.no_token_refetch)
        void this.#refreshToken(session, false);
    });
    device.on('error', (error, call) => {
      // A call's errors are handled by the call's own listener.
      if (current() && !call) this.#onDeviceError(error, session);
    });
  }

  /** Applies the audio devices this browser remembers, where they are listed (never throws). */
  async #restoreAudioDevices(device: PhoneDevice, session: number): Promise<void> {
    const storage = this.#options.audioStorage;
    if (!storage) return;
    const { refused } = await applyRememberedAudioDevices(device.audio, storage);
    if (session !== this.#session) return;
    for (const { kind, error } of refused)
      this.#logError(`choosing the ${kind} device failed`, error);
  }

  async #refreshToken(session: number, reregister: boolean, fetchToken = true): Promise<void> {
    const request = ++this.#tokenRequest;
    try {
      const token = fetchToken ? await this.#options.api.getToken(false) : null;
      if (session !== this.#session || request !== this.#tokenRequest) return;
      const device = this.#device;
      if (!device) return;
      if (token !== null) device.updateToken(token);
      if (reregister) await device.register();
    } catch (error) {
      if (session === this.#session) this.#logError('refreshing the softphone token failed', error);
    }
  }

  /** Loads call user `callUserId` (through the app's query cache when it gives one). */
  #loadCallUser(callUserId: number): Promise<CallUserResponse> {
    return (this.#options.loadCallUser ?? ((id) => this.#options.api.getCallUser(id)))(callUserId);
  }

  /**
   * A ring reached the socket: its call user starts loading now, while the SDK starts its
   * ringtone (it hands the call over once that plays). Only a ring the console would take: the
   * checks of `#onIncoming` decide again when the call comes.
   */
  #onInvite({ CallSid, From }: PhoneCallParameters): void {
    const callUserId = parseCallUserId(From);
    if (callUserId === null) return;
    if (this.#pendingCall || this.#activeCall || !canTransition(this.state, 'incoming')) return;
    const loaded = this.#loadCallUser(callUserId);
    // Its failure is reported by the call that takes it; a ring that never comes takes nothing.
    loaded.catch(() => undefined);
    this.#announced = { callSid: CallSid, callUserId, loaded };
  }

  /** The call user of `callSid` if its load began at the ring, else a new load. */
  #callUserOf(callSid: string, callUserId: number): Promise<CallUserResponse> {
    const announced = this.#announced;
    this.#announced = null;
    return announced?.callSid === callSid && announced.callUserId === callUserId
      ? announced.loaded
      : this.#loadCallUser(callUserId);
  }

  async #onIncoming(call: PhoneCall, session: number): Promise<void> {
    const { CallSid, From } = call.parameters;
    const callUserId = parseCallUserId(From);
    if (callUserId === null) {
      this.#logError(
        'incoming call refused',
        new WebError(
          'MalformedIncomingCallError',
          `Call ${CallSid} has caller id "${From}"; expected client:<call user id>.`,
        ),
      );
      this.#release(call);
      return;
    }
    if (this.#pendingCall || this.#activeCall || !canTransition(this.state, 'incoming')) {
      this.#options.log.info(`Declined call ${CallSid}: the agent is busy (${this.state.view}).`);
      this.#release(call);
      return;
    }
    this.#pendingCall = call;
    this.#wireCall(call, session);
    let loaded: CallUserResponse;
    try {
      loaded = await this.#callUserOf(CallSid, callUserId);
    } catch (error) {
      if (this.#pendingCall !== call) return;
      this.#pendingCall = null;
      this.#logError(`loading call user ${callUserId} failed`, error);
      this.#release(call);
      return;
    }
    // The caller may have given up, or the session ended, while the call user loaded.
    if (this.#pendingCall !== call || session !== this.#session) return;
    this.#pendingCall = null;
    if (!canTransition(this.state, 'incoming')) {
      this.#release(call);
      return;
    }
    const consoleCall: ConsoleCall = {
      callSid: CallSid,
      callUserId,
      call: loaded.call,
      type: loaded.type,
      autoaccept: loaded.autoaccept,
    };
    this.#activeCall = call;
    this.send({
      type: 'incoming',
      call: consoleCall,
      banner: incomingBanner(consoleCall, this.#user?.settings ?? {}),
      followUps: followUpsOf(this.#user?.permissions ?? []),
    });
    if (shouldAutoAccept(consoleCall)) this.accept();
  }

  #wireCall(call: PhoneCall, session: number): void {
    const isActive = () => this.#activeCall === call;
    const dropIfPending = () => {
      if (this.#pendingCall !== call) return false;
      this.#pendingCall = null;
      this.#release(call);
      return true;
    };
    const onCancel = () => {
      if (!dropIfPending() && isActive()) this.#sendIfAllowed({ type: 'cancel' });
    };
    const onAccept = () => {
      // An outgoing call was answered by the far end; an incoming one is accepted by the agent,
      // and the console is on the call already.
      if (isActive() && this.state.view === 'dialing') {
        this.send({ type: 'accept', atMs: this.#options.clock.now() });
      }
    };
    const onDisconnect = () => {
      if (!dropIfPending() && isActive()) this.#sendIfAllowed({ type: 'disconnect' });
    };
    const onMute = (muted: boolean) => {
      if (isActive()) this.#sendIfAllowed({ type: 'mute', muted });
    };
    const onReconnecting = (error: PhoneError) => {
      if (!isActive()) return;
      this.#logPhoneError('reconnecting', error);
      this.#sendIfAllowed({ type: 'reconnecting', atMs: this.#options.clock.now() });
    };
    const onReconnected = () => {
      if (isActive()) this.#sendIfAllowed({ type: 'reconnected' });
    };
    const onVolume = (input: number, output: number) => {
      if (isActive() && this.state.view === 'oncall') this.#setVolume({ input, output });
    };
    const onWarning = (name: PhoneCallWarningName, data?: PhoneCallWarningData | null) => {
      if (isActive()) this.#qualityWarning(name, 'raised', data);
    };
    const onWarningCleared = (name: PhoneCallWarningName) => {
      if (isActive()) this.#qualityWarning(name, 'cleared');
    };
    const onError = (error: PhoneError) => {
      if (session !== this.#session) return;
      if (this.#pendingCall === call) {
        this.#logPhoneError('call', error);
        dropIfPending();
      } else if (isActive()) {
        this.#onCallError(error, session);
      }
    };
    call.on('accept', onAccept);
    call.on('cancel', onCancel);
    call.on('disconnect', onDisconnect);
    call.on('mute', onMute);
    call.on('volume', onVolume);
    call.on('error', onError);
    call.on('reconnecting', onReconnecting);
    call.on('reconnected', onReconnected);
    call.on('warning', onWarning);
    call.on('warning-cleared', onWarningCleared);
    this.#detachers.set(call, () => {
      call.off('accept', onAccept);
      call.off('cancel', onCancel);
      call.off('disconnect', onDisconnect);
      call.off('mute', onMute);
      call.off('volume', onVolume);
      call.off('error', onError);
      call.off('reconnecting', onReconnecting);
      call.off('reconnected', onReconnected);
      call.off('warning', onWarning);
      call.off('warning-cleared', onWarningCleared);
    });
  }

  /**
   * A call quality warning of the active call raised or cleared (spec section 9): the on-call
   * view's notices follow it, and the error log gets a line when it changed what stands.
   */
  #qualityWarning(
    name: string,
    change: 'raised' | 'cleared',
    data?: PhoneCallWarningData | null,
  ): void {
    const before = this.state.qualityWarnings;
    this.#sendIfAllowed(
      change === 'raised'
        ? { type: 'qualityWarning', name }
        : { type: 'qualityWarningCleared', name },
    );
    if (this.state.qualityWarnings !== before) {
      this.#writeLog(qualityWarningLogLine(name, change, data));
    }
  }

  /** Spec section 8 for device errors: ignore, refresh the token, or log and reset a live call. */
  #onDeviceError(error: PhoneError, session: number): void {
    const policy = phoneErrorPolicy(error.code);
    if (policy === 'ignore') return;
    this.#logPhoneError('device', error);
    if (policy === 'refreshToken') {
      if (!this.#user?.settings.no_token_refetch) void this.#refreshToken(session, false);
      return;
    }
    if (policy === 'microphone') this.#options.alert(MICROPHONE_ERROR_ALERT);
    // Only a live call has call state to reset; a note being written is left alone.
    if (LIVE_VIEWS.has(this.state.view)) this.#sendIfAllowed({ type: 'phoneError' });
  }

  /** Spec sections 4 and 8 for errors of the active call. */
  #onCallError(error: PhoneError, session: number): void {
    const policy = phoneErrorPolicy(error.code);
    if (policy === 'ignore') return;
    this.#logPhoneError('call', error);
    switch (policy) {
      case 'refreshToken':
        if (!this.#user?.settings.no_token_refetch) void this.#refreshToken(session, false);
        return;
      case 'microphone':
        this.#options.alert(MICROPHONE_ERROR_ALERT);
        this.#sendIfAllowed({ type: 'phoneError' });
        return;
      case 'reset':
        this.#options.alert(CONNECTION_ERROR_ALERT);
        this.#sendIfAllowed({ type: 'connectionError' });
        return;
      case 'declined':
        // Not a call that happened: no Call Result; the waiting view says why.
        this.#sendIfAllowed({ type: 'phoneError' });
        this.#sendIfAllowed({ type: 'notice', text: phoneErrorText(error) });
        return;
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Throws unless the console can start a new call now (waiting, nothing ringing). */
  #requireIdle(): void {
    if (this.#networkTestLive()) {
      throw new WebError(
        'AgentBusyError',
        'A network test is running. Wait for its result before placing a call.',
      );
    }
    if (!canTransition(this.state, 'dial') || this.#pendingCall || this.#activeCall) {
      throw new WebError(
        'AgentBusyError',
        'A call is already being handled. Finish it before placing a new one.',
      );
    }
  }

  #requireCall(event: 'dispose' | 'saveNote' | 'hold' | 'tagChosen' | 'smsSent' | 'retry'): {
    epoch: number;
    call: ConsoleCall;
  } {
    const { epoch, call, view } = this.state;
    if (!call || !canTransition(this.state, event)) {
      throw new WebError(
        'IllegalTransitionError',
        `There is no call to ${event} in the "${view}" view.`,
      );
    }
    return { epoch, call };
  }

  /** Sends `event` if the console is still in `epoch` and accepts it; otherwise drops it. */
  #sendIfCurrent(epoch: number, event: ConsoleEvent): void {
    if (this.state.epoch === epoch) this.#sendIfAllowed(event);
    else this.#options.log.info(`Dropped stale "${event.type}" (epoch ${epoch}).`);
  }

  /** Sends a phone-driven event if the current view accepts it; a late event is dropped. */
  #sendIfAllowed(event: ConsoleEvent): void {
    if (canTransition(this.state, event.type)) this.send(event);
    else this.#options.log.info(`Dropped "${event.type}" in the "${this.state.view}" view.`);
  }

  #setPhone(phone: PhoneStatus): void {
    if (this.#snapshot.phone === phone) return;
    this.#snapshot = { ...this.#snapshot, phone };
    this.#notify();
  }

  #setVolume(volume: VolumeLevels): void {
    if (volume.input === this.#volume.input && volume.output === this.#volume.output) return;
    this.#volume = volume;
    for (const listener of [...this.#volumeListeners]) listener();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #logPhoneError(source: 'device' | 'call' | 'reconnecting', error: PhoneError): void {
    const what = source === 'reconnecting' ? 'call reconnecting after' : `${source} error`;
    this.#writeLog(`softphone ${what} ${error.name} (${error.code}): ${error.message}`);
  }

  #logError(what: string, error: unknown): void {
    const detail = error instanceof WebError ? error.toString() : errorMessage(error);
    this.#writeLog(`${what}: ${detail}`);
  }

  #writeLog(message: string): void {
    this.errors.write(message);
  }
}
