import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** The page the build serves (`index.html`), its script left out: the test imports it. */
const PAGE_BODY = readFileSync(join(import.meta.dirname, '..', 'index.html'), 'utf8')
  .replace(/^[\s\S]*<body>/, '')
  .replace(/<\/body>[\s\S]*$/, '')
  .replace(/<script[\s\S]*?<\/script>/g, '');

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

// Spec §2: "The application is mounted on the page element with id app."
describe('the entry point (spec §2: mounted on the element with id app)', () => {
  it('renders the console into the page’s #app element', async () => {
    document.body.innerHTML = PAGE_BODY;
    const mount = document.getElementById('app');
    expect(mount).not.toBeNull();
    expect(mount!.childElementCount).toBe(0);
    // No session: the session check is answered 401 and the login view shows.
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ success: false }), { status: 401 })),
    );
    await import('./main');
    const login = await screen.findByRole('button', { name: 'Login' });
    expect(mount).toContainElement(login);
    expect(document.body.children).toHaveLength(1);
  });
});
