/**
 * The spec's constants and texts the console uses, each with its spec section
 * (`/shared/spec/product-spec.md`). Views and logic import them from here; no magic values elsewhere.
 */
import type { ACCOUNT_EVENTS } from '@leadline/contracts';

/** §1: the app version label. */
export const APP_VERSION = '1.9.9';

/** §2: the element the app is mounted on. */
export const MOUNT_ELEMENT_ID = 'app';

/** §2, §4: the waiting state's text. */
export const WAITING_TEXT = 'Waiting for lead...';

/** §4: ringing banners by call type (an inbound call shows its number's name instead). */
export const INCOMING_LEAD_BANNER = 'Incoming Lead!';
/** §4: ringing banner of a transfer. */
export const INCOMING_TRANSFER_BANNER = 'Incoming Transfer!';
/** §4: ringing banner of a conference. */
export const INCOMING_CONFERENCE_BANNER = 'Incoming Conference!';
/** §4: banner while an outbound call is being placed. */
export const DIALING_BANNER = 'Dialing...';
/** §4: banner once a call has ended. */
export const CALL_ENDED_BANNER = 'Call Ended';

/** §4, §8: alert after a connection error. */
export const CONNECTION_ERROR_ALERT = 'Connection error code 8';
/** §8: alert for softphone codes 31401/31402 (the spec gives the meaning, not the words). */
export const MICROPHONE_ERROR_ALERT =
  'The microphone cannot be accessed. Allow microphone access for this page and try again.';

/** §9: after an inbound, listen or whisper call ends, the thank-you view resets after this. */
export const AUTO_RESET_AFTER_CALL_MS = 2000;
/** §4, §9: the call timer ticks each second. */
export const CALL_TIMER_TICK_MS = 1000;

/** §9: the volume meter has 5 bars. */
export const VOLUME_METER_BARS = 5;
/** §9: input volume (0..1) is scaled ×10 onto the bars. */
export const INPUT_VOLUME_SCALE = 10;
/** §9: output volume (0..1) is scaled ×20 onto the bars. */
export const OUTPUT_VOLUME_SCALE = 20;

/** §4, §7: an incoming call's `From` is `client:<call_user_id>`. */
export const CALL_USER_IDENTITY_PREFIX = 'client:';

/** §2, §5: the query parameter that opens the New Call panel, and the prefix it must have. */
export const TEL_LINK_PARAM = 'url';
/** §5: a tel: link parameter must start with this. */
export const TEL_LINK_PREFIX = 'tel:/';

/**
 * §1, §7: the `interface` the console sends when it places an outbound call from the desktop
 * wrapper (in a plain browser the field is left out).
 */
export const OUTBOUND_INTERFACE = 'desktop';
/** §1: the desktop wrapper is an Electron app; its user agent carries `Electron/<version>`. */
export const ELECTRON_USER_AGENT_PATTERN = /\bElectron\/\d/;

/** §2, §9: caller ID names are cut to this many characters in the New Call panel… */
export const CALLER_ID_NAME_MAX_CHARS = 40;
/** §2: …followed by this. */
export const CALLER_ID_NAME_ELLIPSIS = '...';

/** §2, §9: the phone input's type-to-find forgets what was typed after this pause. */
export const TYPE_TO_FIND_RESET_MS = 700;
/** §2, §9: the country list opens below the input when more than this remains under it. */
export const DROPDOWN_OPEN_BELOW_MIN_PX = 200;
/** §2, §8: reported when the visitor's country cannot be looked up. */
export const COUNTRY_LOOKUP_FAILED_MESSAGE = 'unable to fetch the country';
/** §2: the phone input's placeholder. */
export const PHONE_INPUT_PLACEHOLDER = 'Enter a phone number';

/**
 * §4 (signalling reconnects when a reconnect token exists): how long a live call waits for the
 * signalling socket to come back. Our SDK defaults to it; the official SDK needs it given as
 * `maxCallSignalingTimeoutMs` (its default is 0: no signalling reconnect).
 */
export const SIGNALING_RECONNECT_WINDOW_MS = 30_000;

/**
 * Calls per page of the History panel (spec section 7: `GET /api/v1/mycalls` with limit 5).
 * Kept here rather than imported from the contracts package's root, whose values would bring
 * the phone number metadata into the login page's bundle.
 */
export const HISTORY_LIMIT = 5;

/** §6: the permission for the SMS follow-up (SMS step after voicemail or missed, default text). */
export const PERMISSION_SMS = 'app-sms';
/** §6: the permission for the Retry button. */
export const PERMISSION_RETRY = 'app-retry';

/**
 * §4, §9: the SMS text offered to users with `app-sms`. The same text as the contracts
 * package's `DEFAULT_SMS_TEXT` (a test checks), kept here for the same bundle reason as above.
 */
export const DEFAULT_SMS_TEXT = "Sorry we couldn't reach you!";

/** §2: the waiting view's answer when Check for lead found a lead (it rings next). */
export const CHECK_FOR_LEAD_RANG = 'A waiting lead is ringing you.';

/**
 * The header that makes a write safe to repeat (the contracts package's
 * `IDEMPOTENCY_KEY_HEADER`; a test checks they agree).
 */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** The longest SMS body the server takes (`SmsBody` in the contracts: 1600 characters). */
export const SMS_MAX_LENGTH = 1600;

/** How long the footer says 'Saved' once every after-call write reached the server. */
export const SAVED_SHOWN_MS = 3000;

/** §2, §8: the error log Copy Error Logs copies keeps this many newest lines. */
export const ERROR_LOG_MAX_LINES = 200;
/** §8: the alert after Copy Error Logs. */
export const COPIED_LOGS_ALERT = 'Copied error logs to clipboard!';
/** §6: the permission for the Auto Accept setting. */
export const PERMISSION_AUTOACCEPT = 'app-autoaccept';

/**
 * §2 (Settings panel: Microphone, Speaker and Ringer selectors), §3 (Audio settings): the id
 * browsers give the system's default audio device, and what the selectors call it.
 */
export const DEFAULT_AUDIO_DEVICE_ID = 'default';
/** §2: the selectors' option for the default device. */
export const DEFAULT_AUDIO_DEVICE_LABEL = 'Default';
/** §2: a device whose name the browser hides is shown as this plus its place in the list. */
export const UNNAMED_AUDIO_DEVICE_PREFIX = 'Device ';
/** §3: where this browser remembers the chosen microphone, speaker and ringer. */
export const AUDIO_DEVICE_STORAGE_KEYS = {
  input: 'leadline.audio.input',
  speaker: 'leadline.audio.speaker',
  ringer: 'leadline.audio.ringer',
} as const;
/** §2: the Settings panel's line while the phone is not ready (no device lists yet). */
export const AUDIO_DEVICES_NOT_READY_TEXT = 'Audio devices are listed once the phone is ready.';
/** §2: why Speaker and Ringer are disabled in a browser that cannot route sound (`setSinkId`). */
export const OUTPUT_SELECTION_UNSUPPORTED_TEXT =
  'This browser cannot choose where sound plays: the system default is used.';

/**
 * §4 ("On the desktop app an incoming call is also signalled"): the `window.postMessage` the
 * console sends the desktop wrapper's preload script; `type` says what happened.
 */
export const DESKTOP_MESSAGE_SOURCE = 'leadline';
/** The desktop message of a ringing call. */
export const DESKTOP_INCOMING_CALL_MESSAGE = 'incoming-call';
/** The tag of the incoming-call notification (a second call replaces the first). */
export const INCOMING_NOTIFICATION_TAG = 'leadline-incoming-call';
/** The Settings line while notifications are off, with its button. */
export const NOTIFICATIONS_OFF_TEXT =
  'Get a notification when a lead rings while this tab is not in view.';
/** The Settings line once the browser allows notifications. */
export const NOTIFICATIONS_ON_TEXT =
  'A notification shows when a lead rings while this tab is not in view.';
/** The Settings line when the browser blocks notifications for the console. */
export const NOTIFICATIONS_BLOCKED_TEXT =
  "Notifications are blocked for this site: allow them in the browser's site settings.";
/** The Settings line where the browser has no notifications. */
export const NOTIFICATIONS_UNSUPPORTED_TEXT = 'This browser cannot show notifications.';
/** Shown before the first call while the browser blocks sound (autoplay policy). */
export const SOUND_BLOCKED_TEXT =
  'Your browser is blocking sound: incoming leads would ring silently.';
/**
 * How long the autoplay check waits for a refusal of a silent audio element's play() before it
 * calls sound allowed (a browser that blocks it refuses at once).
 */
export const AUTOPLAY_PROBE_WAIT_MS = 1000;
/** The button that lifts the block. */
export const SOUND_UNLOCK_LABEL = 'Turn on sound';
/**
 * §2, §5: the address `tel:` links open once Leadline is their handler: the browser puts the
 * escaped link in place of `%s`, and the `tel:/` prefix makes it the spec's `?url=tel:/…` form.
 */
export const TEL_HANDLER_URL_TEMPLATE = '/?url=tel:/%s';
/** The Settings line about tel: links. */
export const TEL_HANDLER_TEXT = 'Open phone links (tel:) on any page with Leadline.';
/** After asking: the browser confirms the handler with its own prompt. */
export const TEL_HANDLER_ASKED_TEXT =
  'Asked the browser: confirm in its prompt (or the icon in the address bar) and tel: links open New Call here.';
/** Where the browser cannot register handlers. */
export const TEL_HANDLER_UNSUPPORTED_TEXT = 'This browser cannot open tel: links with a web app.';

/**
 * One tab owns the phone (docs/reliability.md): the Web Lock a tab holds while it runs the
 * agent's softphone (followed by the user id).
 */
export const PHONE_OWNER_LOCK_PREFIX = 'leadline-phone-';
/** The channel on which the owning tab publishes its phone's state (followed by the user id). */
export const PHONE_OWNER_CHANNEL_PREFIX = 'leadline-phone-';

/**
 * Issue 17, the pre-call network test in Settings: "a 10-second test call to an echo number of
 * the engine reporting a MOS grade". The test measures for this long once the call is answered.
 */
export const NETWORK_TEST_DURATION_MS = 10_000;
/** How long the network test waits for its call to be answered before it gives up. */
export const NETWORK_TEST_ANSWER_TIMEOUT_MS = 15_000;
/** How often the network test's progress ("Testing… N s") moves on. */
export const NETWORK_TEST_PROGRESS_MS = 1000;
/**
 * Issue 17's grades of the network test by MOS, best first: a grade needs a MOS above its floor
 * ("Excellent > 4.2, Great > 4.1, Good > 3.7, Fair > 3.1, Degraded otherwise").
 */
export const NETWORK_GRADE_MOS_FLOORS = [
  { grade: 'Excellent', above: 4.2 },
  { grade: 'Great', above: 4.1 },
  { grade: 'Good', above: 3.7 },
  { grade: 'Fair', above: 3.1 },
] as const;
/** The grade of a MOS at or under every floor of {@link NETWORK_GRADE_MOS_FLOORS}. */
export const NETWORK_GRADE_LOWEST = 'Degraded';
/** The Settings button that runs the network test. */
export const NETWORK_TEST_LABEL = 'Test network';
/** The network test's failures, as the Settings panel shows them. */
export const NETWORK_TEST_ERRORS = {
  notWaiting: 'The network test runs only while you wait for a lead, with the phone ready.',
  notAnswered: 'The test call was not answered. Check your connection and try again.',
  endedEarly: 'The test call ended before the test finished. Check your connection and try again.',
  noSamples: 'The test call measured no audio quality. Check your connection and try again.',
} as const;

/**
 * Issue 18: the account channel's event of an agent's status change (the contracts'
 * `ACCOUNT_EVENTS.agentStatus`, kept here for the bundle reason above; the type checks it).
 */
export const AGENT_STATUS_EVENT = 'agent-status' satisfies (typeof ACCOUNT_EVENTS)['agentStatus'];
/**
 * Issue 39: the account channel's event of a call moving on the floor (queued, rung, answered,
 * ended; `ACCOUNT_EVENTS.floorChanged`, kept here for the bundle reason above).
 */
export const FLOOR_CHANGED_EVENT =
  'floor-changed' satisfies (typeof ACCOUNT_EVENTS)['floorChanged'];
/**
 * Issue 39: the floor is read again this long after the first of a burst of events that change
 * it (`floor-changed`, `agent-status`: a lead rung and answered is several), in one read, and
 * never twice within it (`realtime/read-coalescer.ts`): live to a supervisor, few reads of a
 * busy floor.
 */
export const FLOOR_EVENTS_WINDOW_MS = 500;
/**
 * Issue 18: while the realtime connection is not connected (never yet, or lost), the open agent
 * and team lists (Transfer, Conference) are read again this often; once connected, never.
 */
export const AGENT_LISTS_REFRESH_MS = 5_000;

/**
 * §9 (call-quality warnings; issue 35 item 5): what the on-call view says while a warning of
 * each kind stands, in plain words: `connection` for the network warnings (jitter, rtt, MOS,
 * packet loss, no audio arriving, the connection lost), `microphone` for a microphone whose level
 * does not change (`constant-audio-input-level`: silent or stuck), `sending` for no audio going
 * out (`low-bytes-sent`).
 */
export const CALL_QUALITY_NOTICE_TEXT = {
  connection: 'Poor connection: audio may break up',
  microphone: 'No sound from your microphone',
  sending: 'Your voice is not getting through',
} as const;
