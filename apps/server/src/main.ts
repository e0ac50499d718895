/** Starts Leadline from the environment (`npm start`). */
import { ConfigError, loadConfig } from './config';
import { startLeadline } from './leadline';
import { exposureWarning, refuseUnsafeProduction } from './production-safety';
import { startRelay } from './relay/start-relay';
import { TlsSetupError } from './tls/tls-credentials';

async function main(): Promise<void> {
  const config = loadConfig();
  // Production starts only without the public demo's logins and keys (every problem named).
  await refuseUnsafeProduction(config);
  // With VOICE_MEDIA_URL this instance relays calls to the media instance (several instances).
  const leadline = config.mediaUrl ? await startRelay(config) : await startLeadline(config);
  const warning = exposureWarning(config);
  if (warning) leadline.app.log.warn(warning);
  leadline.app.log.info(`Leadline is ready on ${leadline.url}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    leadline.app.log.info(`${signal}: shutting down`);
    leadline.close().then(
      () => process.exit(0),
      (error: unknown) => {
        leadline.app.log.error({ err: error }, 'shutdown failed');
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
