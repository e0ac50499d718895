/**
 * Which leader URLs a follower relays to (`instance-urls.ts`, `INSTANCE_URLS`): loopback always,
 * else only an allowed origin or an IP-literal host in an allowed range.
 */
import { describe, expect, it } from 'vitest';
import { allowedInstancesOf, allowsInstanceUrl, instanceUrlEntryProblem } from './instance-urls';

const allowed = allowedInstancesOf([
  'https://media-1.internal:3000',
  '10.0.0.0/24',
  '192.0.2.7',
  'fd00:1::/64',
]);

describe('allowsInstanceUrl', () => {
  it.each([
    'https://media-1.internal:3000',
    'https://media-1.internal:3000/',
    'http://10.0.0.5:3000',
    'https://10.0.0.255:8443',
    'http://192.0.2.7:3000',
    'http://[fd00:1::5]:3000',
  ])('allows %s', (url) => {
    expect(allowsInstanceUrl(allowed, url)).toBe(true);
  });

  it.each([
    'http://media-1.internal:3000', // another scheme than the one allowed
    'https://media-1.internal:3001', // another port
    'https://media-2.internal:3000',
    'http://10.0.1.5:3000',
    'http://192.0.2.8:3000',
    'http://169.254.169.254',
    'http://[fd00:2::5]:3000',
    // Set, INSTANCE_URLS allows loopback only when it lists it.
    'http://127.0.0.1:3000',
    'http://localhost:3000',
    'http://user:pass@10.0.0.5:3000',
    'ftp://10.0.0.5',
    'not a url',
  ])('refuses %s', (url) => {
    expect(allowsInstanceUrl(allowed, url)).toBe(false);
  });

  it('allows loopback only (any port) when INSTANCE_URLS is unset', () => {
    const none = allowedInstancesOf([]);
    for (const url of [
      'http://127.0.0.1:3000',
      'http://127.0.0.2:41234',
      'http://[::1]:3000',
      'http://localhost:3000',
    ]) {
      expect(allowsInstanceUrl(none, url)).toBe(true);
    }
    expect(allowsInstanceUrl(none, 'http://10.0.0.5:3000')).toBe(false);
  });
});

describe('plain HTTP to another machine', () => {
  it('is allowed by a range only where the network is private', () => {
    const entries = ['10.0.0.0/24', 'http://10.0.1.5:3000', 'http://127.0.0.1:3000'];
    const open = allowedInstancesOf(entries, { plainHttp: false });
    expect(allowsInstanceUrl(open, 'https://10.0.0.5:3000')).toBe(true);
    expect(allowsInstanceUrl(open, 'http://10.0.0.5:3000')).toBe(false);
    expect(allowsInstanceUrl(open, 'http://10.0.1.5:3000')).toBe(false);
    expect(allowsInstanceUrl(open, 'http://127.0.0.1:3000')).toBe(true);
    const closed = allowedInstancesOf(entries, { plainHttp: true });
    expect(allowsInstanceUrl(closed, 'http://10.0.0.5:3000')).toBe(true);
    expect(allowsInstanceUrl(closed, 'http://10.0.1.5:3000')).toBe(true);
  });
});

describe('instanceUrlEntryProblem', () => {
  it.each(['https://10.0.0.5:3000', 'http://media-1.internal', '10.0.0.0/8', '::1', 'fd00::/8'])(
    'reads %s',
    (entry) => expect(instanceUrlEntryProblem(entry)).toBeNull(),
  );
  it.each([
    '10.0.0.0/33',
    'media-1.internal',
    'https://10.0.0.5/api',
    'ftp://10.0.0.5',
    'https://a@b',
  ])('refuses %s', (entry) => expect(instanceUrlEntryProblem(entry)).not.toBeNull());
});
