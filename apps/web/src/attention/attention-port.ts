/**
 * What the console needs from the browser to reach an agent who is not looking at it, and from
 * the desktop wrapper: browser notifications, whether the page is in view, the autoplay policy
 * (can the ringtone be heard?), the `tel:` protocol handler, and the Electron bridge. The logic
 * in this folder receives an {@link AttentionPlatform}; only `browser-attention.ts` touches the
 * globals, and `test-support/fake-attention.ts` is the shared test double.
 */

/** The browser's notification permission; `unsupported` where there is no Notification API. */
export type NotificationPermissionState = 'default' | 'granted' | 'denied' | 'unsupported';

/** A notification on screen. */
export interface ShownNotification {
  close(): void;
}

/** What a notification says. */
export interface NotificationContent {
  readonly title: string;
  readonly body: string;
  /** Replaces an earlier notification with the same tag instead of stacking. */
  readonly tag: string;
}

/** `Notification` and its permission. */
export interface NotificationsPort {
  permission(): NotificationPermissionState;
  /** Asks the browser (it shows its prompt); resolves with the answer. */
  requestPermission(): Promise<NotificationPermissionState>;
  /** Shows a notification; `onClick` runs when the agent clicks it. */
  show(content: NotificationContent, onClick: () => void): ShownNotification;
}

/** Whether the agent has the console in front of them, and bringing it there. */
export interface PageFocus {
  /** True when the tab is visible and its window has the focus. */
  isInView(): boolean;
  /** Brings the console's window and tab to the front (`window.focus`). */
  focus(): void;
}

/**
 * The browser's autoplay policy as it applies to the ringtone: sound is `allowed`, or `blocked`
 * until the agent interacts with the page.
 */
export type SoundPolicyState = 'allowed' | 'blocked';

/** Reads and lifts the autoplay policy. */
export interface SoundPolicy {
  /**
   * The policy now (no user gesture involved). Asynchronous: a browser may only say a little
   * after it is asked (an audio element's play() settles once it started or was refused).
   */
  state(): Promise<SoundPolicyState>;
  /**
   * Lifts the block: call from a click handler (the click is the gesture the browser waits for).
   * Resolves with the state after.
   */
  unlock(): Promise<SoundPolicyState>;
  /** Calls `listener` after the agent interacted with the page (a click or key may lift the block). */
  onInteraction(listener: () => void): () => void;
}

/** `navigator.registerProtocolHandler` for `tel:` links. */
export interface ProtocolHandlers {
  /** False where the browser has no `registerProtocolHandler` (mobile browsers, Electron). */
  readonly supported: boolean;
  /**
   * Asks the browser to open `tel:` links with `urlTemplate` (it contains `%s`, replaced by the
   * escaped link). Throws when the browser refuses the template.
   */
  registerTel(urlTemplate: string): void;
}

/** An incoming call as the console tells the desktop wrapper about it. */
export interface DesktopIncomingCall {
  /** The banner the console shows ('Incoming Lead!', 'Incoming Transfer!', an inbound number's name…). */
  readonly banner: string;
  readonly callSid: string;
  /** The lead's name and number, when the call has a lead. */
  readonly leadName: string | null;
  readonly phoneNumber: string | null;
}

/**
 * The Electron desktop wrapper (spec section 1: detected by the user agent). It loads the console
 * in a window; the console signals incoming calls to it so it can flash the taskbar, raise the
 * window or play its own alert.
 */
export interface DesktopBridge {
  /** Whether the console runs inside the desktop wrapper. */
  readonly isDesktop: boolean;
  /** Tells the wrapper a call is ringing (nothing happens outside the wrapper). */
  signalIncomingCall(call: DesktopIncomingCall): void;
}

/** Everything the console uses to reach an agent who is elsewhere. */
export interface AttentionPlatform {
  readonly notifications: NotificationsPort;
  readonly page: PageFocus;
  readonly sound: SoundPolicy;
  readonly protocolHandlers: ProtocolHandlers;
  readonly desktop: DesktopBridge;
}
