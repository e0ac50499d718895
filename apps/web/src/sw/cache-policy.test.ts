import { describe, expect, it } from 'vitest';
import { buildVersion, cacheNameOf, staleCaches, strategyFor } from './cache-policy';

const ORIGIN = 'https://console.example';
const get = (path: string, mode = 'cors') => ({ method: 'GET', url: `${ORIGIN}${path}`, mode });

describe('service worker cache policy', () => {
  it.each([
    [get('/', 'navigate'), 'shell'],
    [get('/?url=tel:/+15550100142', 'navigate'), 'shell'],
    [get('/some/page', 'navigate'), 'shell'],
    [get('/assets/index-abc123.js'), 'asset'],
    [get('/assets/index-abc123.css', 'no-cors'), 'asset'],
    // The API is never answered by the worker, not even a page-like load of it.
    [get('/api/v1/user?time=1'), 'network'],
    [get('/api/v1/calls/1/recording', 'navigate'), 'network'],
    [get('/apps/webrtc/check'), 'network'],
    [get('/twilio/debug/webrtc'), 'network'],
    [get('/signal'), 'network'],
    [get('/healthz'), 'network'],
    [get('/sw.js'), 'network'],
    [{ method: 'POST', url: `${ORIGIN}/api/v1/notes`, mode: 'cors' }, 'network'],
    [{ method: 'POST', url: `${ORIGIN}/`, mode: 'navigate' }, 'network'],
    [{ method: 'GET', url: 'https://cdn.example/x.js', mode: 'no-cors' }, 'network'],
    [get('/favicon.ico'), 'network'],
  ])('%j → %s', (request, expected) => {
    expect(strategyFor(request, ORIGIN)).toBe(expected);
  });

  it('a new build gets a new cache; the old ones are dropped, others left alone', () => {
    const v1 = buildVersion(['/assets/a-1.js', '/assets/b-1.css']);
    const v2 = buildVersion(['/assets/a-2.js', '/assets/b-1.css']);
    expect(v1).not.toBe(v2);
    expect(buildVersion(['/assets/b-1.css', '/assets/a-1.js'])).toBe(v1);
    const current = cacheNameOf(v2);
    expect(staleCaches([cacheNameOf(v1), current, 'someone-else'], current)).toEqual([
      cacheNameOf(v1),
    ]);
  });
});
