/**
 * The shared test double of {@link AttentionPlatform}: notifications shown and closed, a page a
 * test puts in or out of view, an autoplay policy a test sets, the tel: handlers asked for and
 * the desktop messages sent.
 */
import type {
  AttentionPlatform,
  DesktopIncomingCall,
  NotificationContent,
  NotificationPermissionState,
  SoundPolicyState,
} from '../attention/attention-port';

/** A notification the fake showed. */
export interface FakeNotification extends NotificationContent {
  closed: boolean;
  /** Clicks it, as the agent would. */
  click(): void;
}

/** Options of {@link createFakeAttention}. */
export interface FakeAttentionOptions {
  readonly permission?: NotificationPermissionState;
  /** What the prompt answers when asked. */
  readonly promptAnswer?: NotificationPermissionState;
  readonly sound?: SoundPolicyState;
  readonly desktop?: boolean;
  readonly protocolHandlers?: boolean;
}

/** The fake with its recordings and switches. */
export interface FakeAttention extends AttentionPlatform {
  readonly shown: FakeNotification[];
  /** How many times the permission prompt was shown. */
  readonly permissionRequests: number;
  /** Puts the page in view or out of it. */
  setInView(inView: boolean): void;
  /** How many times the page was brought to the front. */
  readonly focusCount: number;
  /** Sets the autoplay policy (as a browser would after an interaction). */
  setSound(state: SoundPolicyState): void;
  /** Simulates the agent clicking or typing somewhere in the page. */
  interact(): void;
  /** The tel: handler templates registered. */
  readonly telHandlers: string[];
  /** What was signalled to the desktop wrapper. */
  readonly desktopSignals: DesktopIncomingCall[];
}

/** Creates the fake; everything is allowed and in view unless `options` say otherwise. */
export function createFakeAttention(options: FakeAttentionOptions = {}): FakeAttention {
  let permission = options.permission ?? 'default';
  let permissionRequests = 0;
  let inView = true;
  let focusCount = 0;
  let sound = options.sound ?? 'allowed';
  const interactionListeners = new Set<() => void>();
  const shown: FakeNotification[] = [];
  const telHandlers: string[] = [];
  const desktopSignals: DesktopIncomingCall[] = [];
  const isDesktop = options.desktop ?? false;
  return {
    shown,
    telHandlers,
    desktopSignals,
    get permissionRequests() {
      return permissionRequests;
    },
    get focusCount() {
      return focusCount;
    },
    setInView: (value) => {
      inView = value;
    },
    setSound: (value) => {
      sound = value;
    },
    interact: () => {
      for (const listener of [...interactionListeners]) listener();
    },
    notifications: {
      permission: () => permission,
      requestPermission() {
        permissionRequests += 1;
        if (permission === 'default') permission = options.promptAnswer ?? 'granted';
        return Promise.resolve(permission);
      },
      show(content, onClick) {
        const notification: FakeNotification = {
          ...content,
          closed: false,
          click() {
            onClick();
            notification.closed = true;
          },
        };
        shown.push(notification);
        return {
          close() {
            notification.closed = true;
          },
        };
      },
    },
    page: {
      isInView: () => inView,
      focus: () => {
        focusCount += 1;
        inView = true;
      },
    },
    sound: {
      state: () => Promise.resolve(sound),
      unlock() {
        sound = 'allowed';
        return Promise.resolve(sound);
      },
      onInteraction(listener) {
        interactionListeners.add(listener);
        return () => interactionListeners.delete(listener);
      },
    },
    protocolHandlers: {
      supported: options.protocolHandlers ?? true,
      registerTel(template) {
        telHandlers.push(template);
      },
    },
    desktop: {
      isDesktop,
      signalIncomingCall(call) {
        if (isDesktop) desktopSignals.push(call);
      },
    },
  };
}
