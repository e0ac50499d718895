/**
 * The real {@link AttentionPlatform}: `Notification`, `document.visibilityState` and
 * `document.hasFocus()`, the autoplay policy (`navigator.getAutoplayPolicy` where the browser has
 * it, else whether a silent audio element may play), `navigator.registerProtocolHandler`, and the
 * Electron wrapper reached with `window.postMessage` (its preload script listens for messages
 * whose `source` is 'leadline').
 */
import {
  AUTOPLAY_PROBE_WAIT_MS,
  DESKTOP_INCOMING_CALL_MESSAGE,
  DESKTOP_MESSAGE_SOURCE,
  ELECTRON_USER_AGENT_PATTERN,
} from '../constants';
import type {
  AttentionPlatform,
  DesktopBridge,
  NotificationPermissionState,
  NotificationsPort,
  ProtocolHandlers,
  SoundPolicy,
  SoundPolicyState,
} from './attention-port';

/** Whether `userAgent` is the Electron desktop wrapper's (spec section 1). */
export function isDesktopUserAgent(userAgent: string): boolean {
  return ELECTRON_USER_AGENT_PATTERN.test(userAgent);
}

/** The browser's attention APIs of `win`. */
export function browserAttention(win: Window): AttentionPlatform {
  return {
    notifications: browserNotifications(win),
    page: {
      isInView: () => win.document.visibilityState === 'visible' && win.document.hasFocus(),
      focus: () => win.focus(),
    },
    sound: browserSoundPolicy(win),
    protocolHandlers: browserProtocolHandlers(win),
    desktop: browserDesktopBridge(win),
  };
}

function browserNotifications(win: Window): NotificationsPort {
  const api = (win as Window & { Notification?: typeof Notification }).Notification;
  return {
    permission: () => (api ? api.permission : 'unsupported'),
    async requestPermission(): Promise<NotificationPermissionState> {
      if (!api) return 'unsupported';
      return api.requestPermission();
    },
    show({ title, body, tag }, onClick) {
      if (!api) return { close: () => undefined };
      const notification = new api(title, { body, tag, requireInteraction: true });
      notification.onclick = () => {
        onClick();
        notification.close();
      };
      return notification;
    },
  };
}

type AutoplayPolicy = 'allowed' | 'allowed-muted' | 'disallowed';
type AutoplayNavigator = Navigator & {
  getAutoplayPolicy?: (type: 'mediaelement') => AutoplayPolicy;
};
/**
 * A silent WAV (8 kHz, 16-bit mono, 80 samples of zero) to ask the browser whether an audio
 * element may play, as the ringtone's does.
 */
const SILENT_WAV = `data:audio/wav;base64,${btoa(
  String.fromCharCode(
    ...[0x52, 0x49, 0x46, 0x46, 196, 0, 0, 0, 0x57, 0x41, 0x56, 0x45],
    ...[
      0x66, 0x6d, 0x74, 0x20, 16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16,
      0,
    ],
    ...[0x64, 0x61, 0x74, 0x61, 160, 0, 0, 0],
    ...new Array<number>(160).fill(0),
  ),
)}`;

function browserSoundPolicy(win: Window): SoundPolicy {
  const navigator = win.navigator as AutoplayNavigator;
  const probe = async (): Promise<SoundPolicyState> => {
    if (typeof navigator.getAutoplayPolicy === 'function') {
      return navigator.getAutoplayPolicy('mediaelement') === 'allowed' ? 'allowed' : 'blocked';
    }
    // The ringtone is an audio element: ask one. A browser that blocks it refuses play() at once
    // with NotAllowedError; one that allows it starts, which may take a while on a busy machine,
    // so no refusal within the wait counts as allowed (never a false alarm).
    const element = win.document.createElement('audio');
    element.volume = 0;
    element.src = SILENT_WAV;
    try {
      return await new Promise<SoundPolicyState>((resolve) => {
        const timer = win.setTimeout(() => resolve('allowed'), AUTOPLAY_PROBE_WAIT_MS);
        element.play().then(
          () => {
            win.clearTimeout(timer);
            resolve('allowed');
          },
          (error: unknown) => {
            win.clearTimeout(timer);
            resolve(
              error instanceof Error && error.name === 'NotAllowedError' ? 'blocked' : 'allowed',
            );
          },
        );
      });
    } finally {
      element.pause();
      element.removeAttribute('src');
    }
  };
  return {
    state: probe,
    // Called from the click: its activation lets audio elements play from then on.
    unlock: probe,
    onInteraction(listener) {
      // After the click or key (not on pointerdown), so the button under the pointer still gets it.
      const events = ['click', 'keydown'] as const;
      for (const type of events) win.addEventListener(type, listener, { capture: true });
      return () => {
        for (const type of events) win.removeEventListener(type, listener, { capture: true });
      };
    },
  };
}

function browserProtocolHandlers(win: Window): ProtocolHandlers {
  const navigator = win.navigator;
  const supported = typeof navigator.registerProtocolHandler === 'function';
  return {
    supported,
    registerTel(urlTemplate) {
      navigator.registerProtocolHandler('tel', new URL(urlTemplate, win.location.origin).href);
    },
  };
}

function browserDesktopBridge(win: Window): DesktopBridge {
  const isDesktop = isDesktopUserAgent(win.navigator.userAgent);
  return {
    isDesktop,
    signalIncomingCall(call) {
      if (!isDesktop) return;
      win.postMessage(
        { source: DESKTOP_MESSAGE_SOURCE, type: DESKTOP_INCOMING_CALL_MESSAGE, call },
        win.location.origin,
      );
    },
  };
}
