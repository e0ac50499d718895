/**
 * Where the product's realtime events go and where the console connects: the embedded
 * Pusher-protocol endpoint on the server's own port (default), hosted Pusher Channels (by
 * cluster), or a self-hosted Pusher-protocol server (Soketi, Laravel Reverb) by host and port.
 * One shape for the publisher (`pusher` library options) and one for the browser (pusher-js
 * options), both from configuration.
 */
import { Agent as HttpsAgent } from 'node:https';
import type Pusher from 'pusher';
import type { RealtimeClientOptions, RealtimeSettings } from '@leadline/contracts/realtime';
import { accountChannelOf, userChannelOf } from './channels';
import type { PusherCredentials } from './pusher-auth';

/** The realtime client's timeouts (spec section 9). */
export const REALTIME_CLIENT_TIMEOUTS = {
  activityTimeout: 120_000,
  pongTimeout: 30_000,
  unavailableTimeout: 10_000,
} as const;

/**
 * WebSocket only, with or without TLS: pusher-js names its plain socket `ws` and the socket it
 * falls back to over TLS `wss`; with `forceTLS` the `ws` transport itself runs over TLS, so
 * both must stay enabled. No HTTP fallbacks: the embedded endpoint has none.
 */
const WEBSOCKET_ONLY: Array<'ws' | 'wss'> = ['ws', 'wss'];

/** The channel-auth route (spec section 7). */
export const PUSHER_AUTH_PATH = '/api/v1/pusher/auth';

/** Which realtime service the product uses. */
export type RealtimeTarget =
  | { kind: 'embedded' }
  /** Hosted Pusher Channels: `api-<cluster>.pusher.com` and `ws-<cluster>.pusher.com`, TLS. */
  | { kind: 'hosted' }
  /** A self-hosted Pusher-protocol server. */
  | {
      kind: 'self-hosted';
      /** Its HTTP events API, as the server reaches it. */
      host: string;
      port: number;
      useTLS: boolean;
      /** Its WebSocket, as browsers reach it. */
      wsHost: string;
      wsPort: number;
    };

/** How the `pusher` library is pointed at the target. */
export type PublisherOptions = Pusher.Options;

/** How long one publish may take before it counts as failed (ms). */
export const PUBLISH_TIMEOUT_MS = 5_000;

/** The `pusher` library's options for `target`; `self` is the server's own address. */
export function publisherOptions(
  credentials: PusherCredentials,
  target: RealtimeTarget,
  self: { host: string; port: number; https: boolean },
): PublisherOptions {
  const base = {
    appId: credentials.appId,
    key: credentials.key,
    secret: credentials.secret,
    timeout: PUBLISH_TIMEOUT_MS,
  };
  switch (target.kind) {
    case 'hosted':
      return { ...base, cluster: credentials.cluster, useTLS: true };
    case 'self-hosted':
      return { ...base, host: target.host, port: String(target.port), useTLS: target.useTLS };
    case 'embedded':
      // Our own port on loopback; with TLS its certificate may be self-signed, and the request
      // never leaves the machine, so it is not checked.
      return {
        ...base,
        host: loopbackOf(self.host),
        port: String(self.port),
        useTLS: self.https,
        ...(self.https ? { agent: new HttpsAgent({ rejectUnauthorized: false }) } : {}),
      };
  }
}

/** The loopback address to reach a server listening on `host`. */
function loopbackOf(host: string): string {
  if (host === '0.0.0.0' || host === 'localhost') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

/** What the browser that asked (its `Host`, its protocol) needs to connect. */
export interface BrowserOrigin {
  hostname: string;
  port: number;
  https: boolean;
}

/** `realtime` of GET /api/v1/user for this user, seen from `origin`. */
export function realtimeSettings(
  credentials: Pick<PusherCredentials, 'key' | 'cluster'>,
  target: RealtimeTarget,
  origin: BrowserOrigin,
  user: { id: number; accountId: number; csrfToken: string },
): RealtimeSettings {
  const common = {
    cluster: credentials.cluster,
    disableStats: true,
    channelAuthorization: {
      endpoint: PUSHER_AUTH_PATH,
      transport: 'ajax' as const,
      headers: { 'X-CSRF-TOKEN': user.csrfToken },
    },
    ...REALTIME_CLIENT_TIMEOUTS,
  };
  let options: RealtimeClientOptions;
  switch (target.kind) {
    case 'hosted':
      options = { ...common, forceTLS: true };
      break;
    case 'self-hosted':
      options = {
        ...common,
        forceTLS: target.useTLS,
        wsHost: target.wsHost,
        wsPort: target.wsPort,
        wssPort: target.wsPort,
        enabledTransports: WEBSOCKET_ONLY,
      };
      break;
    case 'embedded':
      // The endpoint is on the port the page came from (behind a load balancer, its port).
      options = {
        ...common,
        forceTLS: origin.https,
        wsHost: origin.hostname,
        wsPort: origin.port,
        wssPort: origin.port,
        enabledTransports: WEBSOCKET_ONLY,
      };
      break;
  }
  return {
    key: credentials.key,
    options,
    channels: { user: userChannelOf(user.id), account: accountChannelOf(user.accountId) },
  };
}
