/**
 * The page side of the console benchmarks (`incoming-lead`, `app-load`): an init script, run
 * before any of the page's own scripts, that timestamps with a MutationObserver the first moment
 * a text, or a set of elements, is in the page's DOM, and timestamps every WebSocket frame the
 * page receives (a `message` listener added when the page constructs the socket, so it runs
 * before the page's own). Times are the page's `performance.now()`: milliseconds since the
 * navigation started (`performance.timeOrigin`), so one clock serves both ends of a measurement
 * taken in the page. The observer takes its timestamp when its callback starts, before it checks
 * the DOM: the check's own cost is not in the figure. "In the DOM" is React's commit (or the
 * plain page's `append`), before layout and paint; `frameAt` is the start of the next animation
 * frame after it (a paint is at most that frame away).
 *
 * The same script and the same condition check run on our pages and on the reference pages.
 */
import type { Page } from 'playwright-core';

/** What must be in the DOM: a text somewhere in `<body>`, and every selector matching. */
export interface Appearance {
  text?: string;
  selectors?: string[];
}

/** When the appearance was first seen, in the page's `performance.now()` milliseconds. */
export interface Seen {
  at: number;
  /** The start of the animation frame after `at` (undefined if none came within 200 ms). */
  frameAt?: number;
}

/** A WebSocket frame the page received. */
export interface Frame {
  at: number;
  url: string;
  /** The frame's first 160 characters (binary frames: `[binary]`). */
  head: string;
}

/** A call the page made that the timer wraps (media `play()`, WebRTC), timestamped. */
export interface Mark {
  what: string;
  at: number;
}

export interface PageTimer {
  arm(appearance: Appearance): void;
  seen(timeoutMs: number): Promise<Seen>;
  frames: Frame[];
  marks: Mark[];
}

/** The init script (runs in the page; `initial`: a condition watched from the first byte on). */
function install(initial: Appearance | null): void {
  const w = window as unknown as { __benchTimer: PageTimer };
  if (w.__benchTimer) return;
  let condition: Appearance | null = null;
  let seenAt: number | undefined;
  let frameAt: number | undefined;
  let resolveSeen: (() => void) | undefined;
  let whenSeen = Promise.resolve();
  const present = (c: Appearance): boolean =>
    (c.text === undefined || (document.body?.textContent ?? '').includes(c.text)) &&
    (c.selectors ?? []).every((s) => document.querySelector(s) !== null);
  const check = (at: number): void => {
    if (!condition || seenAt !== undefined || !present(condition)) return;
    seenAt = at;
    requestAnimationFrame(() => (frameAt = performance.now()));
    resolveSeen?.();
  };
  const frames: Frame[] = [];
  const marks: Mark[] = [];
  const mark = (what: string): void => {
    marks.push({ what, at: performance.now() });
    if (marks.length > 400) marks.splice(0, marks.length - 400);
  };
  const timer: PageTimer = {
    frames,
    marks,
    arm(appearance) {
      condition = appearance;
      seenAt = undefined;
      frameAt = undefined;
      whenSeen = new Promise<void>((resolve) => (resolveSeen = resolve));
      check(performance.now());
    },
    async seen(timeoutMs) {
      let timeout: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        whenSeen,
        new Promise((_, reject) => {
          timeout = setTimeout(
            () => reject(new Error(`not in the DOM in ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timeout));
      // Wait for the next frame's callback (or give up on it after 200 ms).
      for (let i = 0; i < 20 && frameAt === undefined; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      return { at: seenAt!, ...(frameAt === undefined ? {} : { frameAt }) };
    },
  };
  w.__benchTimer = timer;
  new MutationObserver(() => check(performance.now())).observe(document, {
    childList: true,
    subtree: true,
    characterData: true,
  });
  const Native = window.WebSocket;
  class TimedWebSocket extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const href = String(url);
      this.addEventListener('message', (event: MessageEvent) => {
        const at = performance.now();
        const data: unknown = event.data;
        frames.push({
          at,
          url: href,
          head: typeof data === 'string' ? data.slice(0, 160) : '[binary]',
        });
        if (frames.length > 400) frames.splice(0, frames.length - 400);
      });
    }
  }
  window.WebSocket = TimedWebSocket;
  // Media playback (a ringtone) and WebRTC set-up: when they are asked for and when they are done.
  const timeAsync = (prototype: object, name: string, label: string): void => {
    const native = Object.getOwnPropertyDescriptor(prototype, name)?.value as
      ((this: unknown, ...args: unknown[]) => Promise<unknown>) | undefined;
    if (!native) return;
    Object.defineProperty(prototype, name, {
      configurable: true,
      writable: true,
      value(this: unknown, ...args: unknown[]) {
        mark(`${label} called`);
        const done = native.apply(this, args);
        done.then(
          () => mark(`${label} resolved`),
          () => mark(`${label} rejected`),
        );
        return done;
      },
    });
  };
  timeAsync(HTMLMediaElement.prototype, 'play', 'media play()');
  if (window.ServiceWorkerContainer) {
    timeAsync(ServiceWorkerContainer.prototype, 'register', 'serviceWorker.register()');
  }
  // The page's own fetches (resource timing was seen to miss some of them): when each was made
  // and when its response came (headers).
  const nativeFetch = window.fetch.bind(window);
  window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const path = new URL(url, location.href).pathname;
    const label = `fetch ${method.toUpperCase()} ${path}`;
    mark(`${label} called`);
    const done = nativeFetch(input, init);
    done.then(
      () => mark(`${label} resolved`),
      () => mark(`${label} rejected`),
    );
    return done;
  };
  if (window.RTCPeerConnection) {
    const NativePeer = window.RTCPeerConnection;
    class TimedPeer extends NativePeer {
      constructor(configuration?: RTCConfiguration) {
        mark('RTCPeerConnection created');
        super(configuration);
      }
    }
    window.RTCPeerConnection = TimedPeer;
    timeAsync(NativePeer.prototype, 'setRemoteDescription', 'setRemoteDescription');
  }
  if (initial) timer.arm(initial);
}

/**
 * Installs the timer in `page` (before its next navigation), watching `initial` from the
 * navigation's start when given.
 */
export async function installPageTimer(page: Page, initial?: Appearance): Promise<void> {
  // tsx keeps function names with a `__name` helper that page functions then lack.
  await page.addInitScript('window.__name = (f) => f;');
  await page.addInitScript(install, initial ?? null);
}
