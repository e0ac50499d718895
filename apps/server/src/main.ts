/** Starts Leadline from the environment (`npm start`). */
import { startInstance } from './cluster/start-instance';
import { ConfigError, loadConfig } from './config';
import { exposureWarning, refuseUnsafeProduction } from './production-safety';
import { TlsSetupError } from './tls/tls-credentials';

async function main(): Promise<void> {
  const config = loadConfig();
  // Production starts only without the public demo's logins and keys (every problem named).
  await refuseUnsafeProduction(config);
  // On PostgreSQL every instance starts the same way: the media lease's holder runs the calls,
  // the others relay to it and take over when it goes (`cluster/start-instance.ts`).
  const instance = await startInstance(config);
  const warning = exposureWarning(config);
  if (warning) instance.log.warn(warning);
  instance.log.info(`Leadline is ready on ${instance.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    instance.log.info(`${signal}: shutting down`);
    instance.close().then(
      () => process.exit(0),
      (error: unknown) => {
        instance.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof TlsSetupError) {
    console.error(error.message);
  } else {
    console.error('Leadline could not start:', error);
  }
  process.exit(1);
});
