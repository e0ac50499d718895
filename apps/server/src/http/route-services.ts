/**
 * What the route plugins are given: the services of every instance, and the call services of
 * the instance that runs the calls (or where it relays them). The composition (`leadline.ts`,
 * `relay/start-relay.ts`) builds them; `app.ts` hands them to the routes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DialCeiling } from '../accounts/account-policy';
import type { AdminChanges } from '../admin/admin-changes';
import type { NumberInventory } from '../admin/number-inventory';
import type { LoginThrottle } from '../auth/login-throttle';
import type { SessionStore } from '../auth/sessions';
import type { SingleSignOn } from '../auth/single-sign-on';
import type { SocketAccess } from '../auth/socket-access';
import type { TokenIssuer } from '../auth/twilio-access-tokens';
import type { CallControl } from '../calls/call-control';
import type { CallFlows } from '../calls/call-flows';
import type { RemoteRecordings } from '../calls/recording-access';
import type { Db } from '../db/database';
import type { NetworkTests } from '../network-test/network-tests';
import type { PusherCredentials } from '../realtime/pusher-auth';
import type { RealtimeTarget } from '../realtime/realtime-target';
import type { MediaTarget } from '../relay/media-target';
import type { SmsService } from '../sms/sms-sender';

/** Services every instance has. */
export interface CommonServices {
  db: Db;
  sessions: SessionStore;
  /** Softphone access tokens (token2): the embedded gateway's, or Twilio's. */
  tokens: TokenIssuer;
  loginThrottle: LoginThrottle;
  pusher: PusherCredentials;
  /** Where the console's realtime client connects (default: the embedded endpoint). */
  realtimeTarget?: RealtimeTarget;
  /** Single sign-on through the configured OpenID Connect provider; absent: not configured. */
  sso?: SingleSignOn | null;
  /** The sockets each login let in (closed when it ends); absent: nobody tracks them. */
  sockets?: SocketAccess;
  /** Admin changes, told to every instance; absent: this process only (`admin-changes.ts`). */
  adminChanges?: AdminChanges;
  /** The numbers the telephony account holds (Twilio's); absent: any number (embedded). */
  numbers?: NumberInventory;
  /** What no account's dial policy may exceed (`DIAL_*`); absent: `DEFAULT_DIAL_CEILING`. */
  dialCeiling?: DialCeiling;
  /**
   * Production: the demo's published password signs nobody in and is given to nobody
   * (`auth/demo-password.ts`). Absent: accepted (the embedded trial's logins use it).
   */
  refuseDemoPassword?: boolean;
}

/** The call services, on the instance that runs the calls (the voice engine's). */
export interface CallServices {
  flows: CallFlows;
  control: CallControl;
  sms: SmsService;
  /** The pre-call network tests (Settings). */
  networkTests: NetworkTests;
  /** Recordings the telephony provider keeps (Twilio's); absent: files of the embedded engine. */
  recordings?: RemoteRecordings | undefined;
  /**
   * The folder the engine's recording files are served from (`DATA_DIR/recordings`, where the
   * engine writes them); unset: none.
   */
  recordingsRoot?: string | undefined;
  /** The telephony provider's webhooks (Twilio's `/twilio/*`), when it has any. */
  webhooks?: FastifyPluginAsync | undefined;
}

/**
 * Services the routes use: the call services, or (an instance relaying to the media instance,
 * `docs/deployment.md`) the base URL that serves the call routes, or a target naming the current
 * one (the media lease's leader).
 */
export type AppServices = CommonServices & (CallServices | { relayTo: string | MediaTarget });
