import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** How a thread finds its own id and sets a thread's nice value (Linux: `/proc`, `setpriority`). */
export interface ThreadPriorityPlatform {
  /** The calling thread's kernel id, or `undefined` where the platform cannot tell. */
  currentThreadId(): number | undefined;
  /** Sets the nice value of thread `threadId`; throws if not allowed. */
  setNice(threadId: number, nice: number): void;
}

/**
 * Linux: the thread id from `/proc/thread-self` (`<pid>/task/<tid>`), and `setpriority(2)` on it,
 * which on Linux changes that one thread (nice values are per thread there).
 */
export const linuxThreadPriority: ThreadPriorityPlatform = {
  currentThreadId() {
    try {
      const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    }
  },
  setNice(threadId, nice) {
    setPriority(threadId, nice);
  },
};

/**
 * Gives the calling thread the nice value `nice` (a media worker runs ahead of the main
 * thread's HTTP and database work when they share a core). Returns why it could not (no
 * per-thread id on this platform, or no permission: a negative nice needs `CAP_SYS_NICE`), or
 * `undefined` once done; it never throws, the thread then keeps its priority.
 */
export function setCurrentThreadNice(
  nice: number,
  platform: ThreadPriorityPlatform = linuxThreadPriority,
): string | undefined {
  const threadId = platform.currentThreadId();
  if (threadId === undefined) return 'this platform has no per-thread priority';
  try {
    platform.setNice(threadId, nice);
    return undefined;
  } catch (error) {
    return `could not set the thread's nice value to ${nice} (${error instanceof Error ? error.message : String(error)}); give the process CAP_SYS_NICE, or frame pacing may bend when the core is busy`;
  }
}
