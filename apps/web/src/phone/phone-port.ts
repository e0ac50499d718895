/**
 * The phone port: the only way the console reaches a softphone. It is a subset of the official
 * `@twilio/voice-sdk` surface (`Device`, `Call`), which our SDK (`@leadline/softphone`) mirrors,
 * so an adapter over either is a thin pass-through. The console never imports an SDK; it gets a
 * {@link PhoneFactory} injected at the top (`main.tsx`).
 *
 * Adapter notes:
 * - Events are emitted after the state change they report, like the official SDK.
 * - Errors of a call are emitted on the call's `error`; if the device also re-emits them (the
 *   official SDK does, with the call as second argument) the console ignores the device copy.
 * - `error.code` is the SDK's numeric code (31xxx, 20xxx; spec section 8).
 */

import type { SoftphoneSettings } from '@leadline/contracts';

/** An SDK error: a numeric code (spec section 8), a stable name and a message. */
export interface PhoneError {
  readonly code: number;
  readonly name: string;
  readonly message: string;
}

/** A softphone call's status (spec section 4, "Softphone call states"). */
export type PhoneCallStatus =
  'pending' | 'connecting' | 'ringing' | 'open' | 'reconnecting' | 'closed';

/** The call's parameters as the gateway sent them. `From` is `client:<call_user_id>` for leads. */
export interface PhoneCallParameters {
  readonly CallSid: string;
  readonly From: string;
  readonly To?: string;
}

/**
 * One quality sample of a call, from the SDK's own call quality monitor: about every 1,000 ms
 * while the call is open (spec section 9), the numbers of the last second. The part of the
 * official SDK's `RTCSample` (and our SDK's `CallSample`, the same shape) the console reads.
 */
export interface PhoneCallSample {
  /** When it was measured (the browser's stats timestamp, ms). */
  readonly timestamp: number;
  /** Mean opinion score, 1.0 to about 4.5; null when it cannot be computed (the first sample). */
  readonly mos: number | null;
  /** Inbound packet delay variation (ms). */
  readonly jitter: number;
  /** Round-trip time to the media server and back (ms); absent or null until measured. */
  readonly rtt?: number | null | undefined;
  /** Inbound packets lost in the last second. */
  readonly packetsLost: number;
  /** Inbound packets received in the last second. */
  readonly packetsReceived: number;
  /** Packets lost in the last second, as a percentage (0..100) of the inbound packets. */
  readonly packetsLostFraction: number;
  /** Bytes sent in the last second. */
  readonly bytesSent: number;
  /** Bytes received in the last second. */
  readonly bytesReceived: number;
}

/**
 * The call quality warnings both SDKs raise (spec section 9's thresholds), by the official SDK's
 * names: the stats monitor's (`high-jitter` above 30 ms, `high-rtt` above 400 ms, `low-mos`
 * below 3, `high-packet-loss` above 1 %, `high-packets-lost-fraction` averaging above 3 % over 7
 * samples, `low-bytes-received` and `low-bytes-sent` below 1 byte in 3 samples), the media
 * connection's (`ice-connectivity-lost`: ICE disconnected) and the microphone's
 * (`constant-audio-input-level`: its level does not change, a silent or stuck input; not raised
 * while muted). The official SDK never emits `constant-audio-output-level` (it only publishes
 * it). An SDK may add names; a listener should expect others.
 */
export type PhoneCallWarningName =
  | 'high-jitter'
  | 'high-rtt'
  | 'low-mos'
  | 'high-packet-loss'
  | 'high-packets-lost-fraction'
  | 'low-bytes-received'
  | 'low-bytes-sent'
  | 'ice-connectivity-lost'
  | 'constant-audio-input-level';

/**
 * What a raised warning comes with: the official SDK's `RTCWarning`, our SDK's `QualityWarning`
 * (the same shape). Both SDKs give none (null or nothing) for `ice-connectivity-lost`, and ours
 * none for `constant-audio-input-level`.
 */
export interface PhoneCallWarningData {
  /** The threshold crossed: its kind (`max`, `min`, `maxAverage`, `minStandardDeviation`…) and value. */
  readonly threshold?: { readonly name: string; readonly value: number };
  /** The recent values of the stat that decided it (the stats warnings). */
  readonly values?: readonly number[];
  /** The one value that decided it (the official SDK's audio level warning: a deviation). */
  readonly value?: number;
}

/** Listener signatures of {@link PhoneCall} events, by event name. */
export interface PhoneCallEvents {
  /** The call was answered (incoming: by this side; outgoing: by the far end). */
  accept: (call: PhoneCall) => void;
  /** The call ended (either side). */
  disconnect: (call: PhoneCall) => void;
  /** The caller gave up before the call was answered. */
  cancel: () => void;
  /** This side rejected the call. */
  reject: () => void;
  /** The call failed. */
  error: (error: PhoneError) => void;
  /** The microphone was muted or unmuted. */
  mute: (isMuted: boolean, call: PhoneCall) => void;
  /** The call lost its media or signalling and is trying to get them back. */
  reconnecting: (error: PhoneError) => void;
  /** The call got back what it lost (after `reconnecting`). */
  reconnected: () => void;
  /** Input and output volume, each 0..1, about every 50 ms while the call is open. */
  volume: (inputVolume: number, outputVolume: number) => void;
  /** A quality sample from the SDK's quality monitor, about every second while open. */
  sample: (sample: PhoneCallSample) => void;
  /**
   * A call quality warning was raised (spec section 9): emitted once until it clears. Stats
   * warnings come only after the call's first 5000 ms.
   */
  warning: (name: PhoneCallWarningName, data?: PhoneCallWarningData | null) => void;
  /** A raised warning cleared (a stats warning: after 5000 ms back within its threshold). */
  'warning-cleared': (name: PhoneCallWarningName) => void;
}

/** The name of a {@link PhoneCall} event. */
export type PhoneCallEventName = keyof PhoneCallEvents;

/** One call (`Call` in the official SDK). */
export interface PhoneCall {
  readonly parameters: PhoneCallParameters;
  /** Answers an incoming call; a no-op unless pending. */
  accept(): void;
  /** Declines an incoming call and closes it; only while pending. */
  reject(): void;
  /** Stops ringing locally without telling the other side; only while pending. */
  ignore(): void;
  /** Hangs up. */
  disconnect(): void;
  /** Mutes (`true`, the default) or unmutes the microphone. */
  mute(shouldMute?: boolean): void;
  isMuted(): boolean;
  /**
   * Sends DTMF digits on the call (RFC 4733 telephone-events): 0-9, *, # and w (a pause); throws
   * 'Illegal character passed into sendDigits' for anything else.
   */
  sendDigits(digits: string): void;
  status(): PhoneCallStatus;
  on<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void;
  off<E extends PhoneCallEventName>(event: E, listener: PhoneCallEvents[E]): void;
}

/** Listener signatures of {@link PhoneDevice} events, by event name. */
export interface PhoneDeviceEvents {
  /** The device can now receive calls. */
  registered: () => void;
  /** The device can no longer receive calls. */
  unregistered: () => void;
  /**
   * A ring reached the signalling socket: its parameters (`From` names the call user), before
   * the SDK hands the call over with `incoming` once its ringtone plays, so the console can
   * start loading the call user meanwhile. Only where the adapter can see the socket (ours; the
   * official SDK tells nothing before `incoming`). `incoming` may not follow (the caller gave
   * up, or the SDK refused the call).
   */
  invite: (parameters: PhoneCallParameters) => void;
  /** A call is ringing for this agent. */
  incoming: (call: PhoneCall) => void;
  /** The access token expires soon (lifetime minus 10000 ms, spec section 9). */
  tokenWillExpire: () => void;
  /** A device error; `call` is set when the error belongs to a call (then it is also on the call). */
  error: (error: PhoneError, call?: PhoneCall) => void;
}

/** The name of a {@link PhoneDevice} event. */
export type PhoneDeviceEventName = keyof PhoneDeviceEvents;

/**
 * Connect params of an outgoing call (`Device.connect({ params })` in the official SDK): what
 * the gateway needs to place it. The console sends `call_user_id` (from the outbound answer),
 * `To` (E.164) and, when the agent chose one, `callerId`.
 */
export type PhoneConnectParams = Readonly<Record<string, string>>;

/**
 * An audio device as the browser lists it: `MediaDeviceInfo`'s id and label. Chromium lists the
 * system's default device as an entry of its own, with the id `'default'`.
 */
export interface PhoneAudioDevice {
  readonly deviceId: string;
  /**
   * The device's name: empty while the browser hides names (before the page may use the
   * microphone); the official SDK fills in 'Unknown Audio Input Device 1' and the like.
   */
  readonly label: string;
}

/** Listener signatures of {@link PhoneAudio} events, by event name. */
export interface PhoneAudioEvents {
  /**
   * The device lists changed (a headset plugged in or out, names revealed). `lostActiveDevices`
   * were in use and are gone; the SDK has fallen back to the default device in their place.
   */
  deviceChange: (lostActiveDevices: readonly PhoneAudioDevice[]) => void;
}

/** The name of a {@link PhoneAudio} event. */
export type PhoneAudioEventName = keyof PhoneAudioEvents;

/**
 * A set of active output devices (`OutputDeviceCollection` in the official SDK): the speaker
 * devices (the call's audio and the sounds other than the ringtone) or the ringtone devices.
 */
export interface PhoneOutputDevices {
  /** The active devices (both SDKs start with the default device when output selection works). */
  get(): ReadonlySet<PhoneAudioDevice>;
  /**
   * Makes these devices (by id) the active ones, for a call in progress too. Rejects, changing
   * nothing, for an unknown id or when output selection is not supported.
   */
  set(deviceIds: readonly string[]): Promise<void>;
}

/**
 * The device's audio helper (`device.audio`, `AudioHelper` in the official SDK): the audio
 * devices the browser has, the microphone in use, and where sound plays. The lists are the
 * SDK's own (read them when needed; they change in place before `deviceChange`).
 */
export interface PhoneAudio {
  /** Microphones by id (spec section 3, "Audio settings": the input device list). */
  readonly availableInputDevices: ReadonlyMap<string, PhoneAudioDevice>;
  /** Speakers by id (the output device list); empty where the browser cannot list them. */
  readonly availableOutputDevices: ReadonlyMap<string, PhoneAudioDevice>;
  /** The microphone chosen with {@link setInputDevice}; `null`: the browser's default one. */
  readonly inputDevice: PhoneAudioDevice | null;
  /**
   * Uses this microphone (by id) from now on, for a call in progress too (its track is
   * replaced; the call stays up). Rejects, changing nothing, for an unknown id or when the
   * microphone cannot be opened.
   */
  setInputDevice(deviceId: string): Promise<void>;
  /** Where the call's audio and the sounds other than the ringtone play. */
  readonly speakerDevices: PhoneOutputDevices;
  /** Where the incoming ringtone plays. */
  readonly ringtoneDevices: PhoneOutputDevices;
  /** Whether output devices can be chosen (`HTMLMediaElement.setSinkId`; not in every browser). */
  readonly isOutputSelectionSupported: boolean;
  on<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void;
  off<E extends PhoneAudioEventName>(event: E, listener: PhoneAudioEvents[E]): void;
}

/** The softphone device (`Device` in the official SDK). */
export interface PhoneDevice {
  /** The audio helper: device lists, microphone, speaker and ringtone devices. */
  readonly audio: PhoneAudio;
  /** Registers for incoming calls; rejects if registration fails. */
  register(): Promise<void>;
  /**
   * Places an outgoing call with `params`; resolves with the call as soon as it exists (it is
   * answered when it emits `accept`). Rejects while another call is active.
   */
  connect(params: PhoneConnectParams): Promise<PhoneCall>;
  /** Swaps in a fresh access token. */
  updateToken(token: string): void;
  /** Disconnects every call, unregisters and releases everything; the device is unusable after. */
  destroy(): void;
  on<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void;
  off<E extends PhoneDeviceEventName>(event: E, listener: PhoneDeviceEvents[E]): void;
}

/**
 * Creates a device from an access token (`new Device(token)` in the official SDK) with the
 * server's softphone settings (which SDK, the product's sound URLs).
 */
export type PhoneFactory = (
  token: string,
  settings: SoftphoneSettings,
) => PhoneDevice | Promise<PhoneDevice>;
