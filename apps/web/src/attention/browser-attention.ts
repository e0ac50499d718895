/**
 * The real {@link AttentionPlatform}: `Notification`, `document.visibilityState` and
 * `document.hasFocus()`, the autoplay policy (`navigator.getAutoplayPolicy` where the browser has
 * it, else whether a new `AudioContext` may start), `navigator.registerProtocolHandler`, and the
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
type AudioWindow = Window & { AudioContext?: typeof AudioContext };

function browserSoundPolicy(win: Window): SoundPolicy {
  const navigator = win.navigator as AutoplayNavigator;
  const AudioContextClass = (win as AudioWindow).AudioContext;
  const probe = async (): Promise<SoundPolicyState> => {
    if (typeof navigator.getAutoplayPolicy === 'function') {
      return navigator.getAutoplayPolicy('mediaelement') === 'allowed' ? 'allowed' : 'blocked';
    }
    if (!AudioContextClass) return 'allowed';
    // A context created without a user gesture stays suspended while autoplay is blocked; one
    // that may play reports `running` once its audio thread started (at once, or a moment later).
    const context = new AudioContextClass();
    try {
      if (context.state === 'running') return 'allowed';
      const started = await new Promise<boolean>((resolve) => {
        const timer = win.setTimeout(() => resolve(false), AUTOPLAY_PROBE_WAIT_MS);
        context.onstatechange = () => {
          if (context.state !== 'running') return;
          win.clearTimeout(timer);
          resolve(true);
        };
      });
      return started ? 'allowed' : 'blocked';
    } finally {
      void context.close();
    }
  };
  return {
    state: probe,
    async unlock() {
      if (AudioContextClass) {
        // Inside the click: resuming a context is what the policy lets through now, and the
        // click's activation lets the ringtone's audio element play from then on.
        const context = new AudioContextClass();
        try {
          await context.resume();
        } finally {
          void context.close();
        }
      }
      return probe();
    },
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
