import { describe, expect, it } from 'vitest';
import { isDesktopUserAgent } from './browser-attention';

describe('the desktop wrapper is detected by its user agent (spec section 1)', () => {
  it.each([
    [
      'Electron on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) leadline-desktop/2.3.0 Chrome/128.0.6613.36 Electron/32.0.1 Safari/537.36',
      true,
    ],
    [
      'Electron on macOS',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.243 Electron/30.1.2 Safari/537.36',
      true,
    ],
    [
      'Chrome',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      false,
    ],
    [
      'Firefox',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:141.0) Gecko/20100101 Firefox/141.0',
      false,
    ],
    [
      'Safari',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      false,
    ],
    ['a word, not the product token', 'Mozilla/5.0 ElectronicsBrowser/1.0', false],
  ])('%s', (_name, userAgent, desktop) => {
    expect(isDesktopUserAgent(userAgent)).toBe(desktop);
  });
});
