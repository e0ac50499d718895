/**
 * What a benchmark process must undo (browsers, servers, folders), undone last-in first-out by
 * `cleanUp()` at its end, or on SIGINT, SIGTERM or an unhandled rejection before it exits with 1.
 * Importing this module installs those handlers.
 */
export const cleanups: Array<() => Promise<unknown>> = [];

export async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()!();
    } catch (error) {
      console.error('clean-up:', error);
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanUp().then(() => process.exit(1)));
}
process.once('unhandledRejection', (error) => {
  console.error(error);
  void cleanUp().then(() => process.exit(1));
});
