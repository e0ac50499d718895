import { describe, expect, it } from 'vitest';
import { setCurrentThreadNice, type ThreadPriorityPlatform } from './thread-priority';

function fakePlatform(
  threadId: number | undefined,
  refuse = false,
): {
  platform: ThreadPriorityPlatform;
  calls: Array<[number, number]>;
} {
  const calls: Array<[number, number]> = [];
  return {
    calls,
    platform: {
      currentThreadId: () => threadId,
      setNice: (id, nice) => {
        if (refuse) throw new Error('EACCES: permission denied');
        calls.push([id, nice]);
      },
    },
  };
}

describe('setCurrentThreadNice', () => {
  it('sets the nice value of the calling thread only', () => {
    const { platform, calls } = fakePlatform(4242);
    expect(setCurrentThreadNice(-10, platform)).toBeUndefined();
    expect(calls).toEqual([[4242, -10]]);
  });

  it('says why when the platform has no thread id, and sets nothing', () => {
    const { platform, calls } = fakePlatform(undefined);
    expect(setCurrentThreadNice(-10, platform)).toMatch(/no per-thread priority/);
    expect(calls).toEqual([]);
  });

  it('says why when it is not allowed, without throwing', () => {
    const { platform } = fakePlatform(4242, true);
    expect(setCurrentThreadNice(-10, platform)).toMatch(/EACCES.*CAP_SYS_NICE/);
  });
});
