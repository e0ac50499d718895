import { describe, expect, it, vi } from 'vitest';
import { registerServiceWorker } from './register';

/** A window whose document is loading until `load()`, with a recording service worker container. */
function fakeWindow() {
  const register = vi.fn(() => Promise.resolve());
  const listeners: Array<() => void> = [];
  const win = {
    navigator: { serviceWorker: { register } },
    document: { readyState: 'loading' },
    addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
    setTimeout: (callback: () => void, ms: number) => setTimeout(callback, ms),
  };
  const load = () => {
    win.document.readyState = 'complete';
    for (const listener of listeners) listener();
  };
  return { win: win as unknown as Window, register, load };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('registerServiceWorker', () => {
  it('registers once the page has loaded and the first view is shown, not before', async () => {
    const { win, register, load } = fakeWindow();
    let show!: () => void;
    const shown = new Promise<void>((resolve) => (show = resolve));
    registerServiceWorker(win, () => undefined, shown, true);
    load();
    await flush();
    expect(register).not.toHaveBeenCalled();
    show();
    await vi.waitFor(() => expect(register).toHaveBeenCalledWith('/sw.js'));
  });

  it('waits for the load event when the first view showed first', async () => {
    const { win, register, load } = fakeWindow();
    registerServiceWorker(win, () => undefined, Promise.resolve(), true);
    await flush();
    expect(register).not.toHaveBeenCalled();
    load();
    await vi.waitFor(() => expect(register).toHaveBeenCalledTimes(1));
  });

  it('waits for the browser to be idle where it can tell', async () => {
    const { win, register, load } = fakeWindow();
    const idle: Array<() => void> = [];
    Object.assign(win, { requestIdleCallback: (callback: () => void) => idle.push(callback) });
    registerServiceWorker(win, () => undefined, Promise.resolve(), true);
    load();
    await vi.waitFor(() => expect(idle).toHaveLength(1));
    expect(register).not.toHaveBeenCalled();
    idle[0]!();
    expect(register).toHaveBeenCalledWith('/sw.js');
  });

  it('registers in development builds never', async () => {
    const { win, register, load } = fakeWindow();
    registerServiceWorker(win, () => undefined, Promise.resolve(), false);
    load();
    await flush();
    expect(register).not.toHaveBeenCalled();
  });
});
