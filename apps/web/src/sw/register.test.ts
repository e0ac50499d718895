import { describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { QUERY_KEYS, sessionChecked } from '../api/queries';
import { registerServiceWorker } from './register';

/** A window whose document is loading until `load()`, with a recording service worker container. */
function fakeWindow() {
  const register = vi.fn(() => Promise.resolve());
  const listeners: Array<() => void> = [];
  const win = {
    navigator: { serviceWorker: { register } },
    document: { readyState: 'loading' },
    addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
  };
  const load = () => {
    win.document.readyState = 'complete';
    for (const listener of listeners) listener();
  };
  return { win: win as unknown as Window, register, load };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('registerServiceWorker', () => {
  it('registers once the page has loaded and the session check has answered, not before', async () => {
    const { win, register, load } = fakeWindow();
    let answer!: () => void;
    const settled = new Promise<void>((resolve) => (answer = resolve));
    registerServiceWorker(win, () => undefined, settled, true);
    load();
    await flush();
    expect(register).not.toHaveBeenCalled();
    answer();
    await vi.waitFor(() => expect(register).toHaveBeenCalledWith('/sw.js'));
  });

  it('waits for the load event when the session check answered first', async () => {
    const { win, register, load } = fakeWindow();
    registerServiceWorker(win, () => undefined, Promise.resolve(), true);
    await flush();
    expect(register).not.toHaveBeenCalled();
    load();
    await vi.waitFor(() => expect(register).toHaveBeenCalledTimes(1));
  });

  it('registers in development builds never', async () => {
    const { win, register, load } = fakeWindow();
    registerServiceWorker(win, () => undefined, Promise.resolve(), false);
    load();
    await flush();
    expect(register).not.toHaveBeenCalled();
  });
});

describe('sessionChecked', () => {
  it('resolves when the user query answers, signed in or not, and not while it is pending', async () => {
    const client = new QueryClient();
    let answered = false;
    let answer!: (user: null) => void;
    void client.prefetchQuery({
      queryKey: QUERY_KEYS.user,
      queryFn: () => new Promise<null>((resolve) => (answer = resolve)),
    });
    void sessionChecked(client).then(() => (answered = true));
    await flush();
    expect(answered).toBe(false);
    answer(null);
    await vi.waitFor(() => expect(answered).toBe(true));
  });
});
