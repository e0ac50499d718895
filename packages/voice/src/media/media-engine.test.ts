import { describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_WORKERS, defaultMediaWorkers } from './media-engine';

describe('defaultMediaWorkers', () => {
  it('starts one media worker per core the process may run on, at most two', () => {
    expect(DEFAULT_MEDIA_WORKERS).toBe(2);
    expect(defaultMediaWorkers(1)).toBe(1);
    expect(defaultMediaWorkers(2)).toBe(2);
    expect(defaultMediaWorkers(16)).toBe(2);
  });

  it('starts one even when no core is reported', () => {
    expect(defaultMediaWorkers(0)).toBe(1);
  });
});
