import { describe, expect, it } from 'vitest';
import { publisherOptions, realtimeSettings, type RealtimeTarget } from './realtime-target';

const credentials = { appId: '42', key: 'app-key', secret: 's3cret-s3cret-s3', cluster: 'us2' };
const user = { id: 7, accountId: 3, csrfToken: 'csrf-1' };
const selfHosted: RealtimeTarget = {
  kind: 'self-hosted',
  host: 'soketi.internal',
  port: 6001,
  useTLS: false,
  wsHost: 'rt.example.com',
  wsPort: 6002,
};

describe('where pusher-js connects (realtime of GET /api/v1/user)', () => {
  const common = {
    cluster: 'us2',
    disableStats: true,
    channelAuthorization: {
      endpoint: '/api/v1/pusher/auth',
      transport: 'ajax',
      headers: { 'X-CSRF-TOKEN': 'csrf-1' },
    },
    // Spec section 9.
    activityTimeout: 120_000,
    pongTimeout: 30_000,
    unavailableTimeout: 10_000,
  };

  it.each<[string, RealtimeTarget, { hostname: string; port: number; https: boolean }, object]>([
    [
      'hosted Pusher: cluster and TLS forced',
      { kind: 'hosted' },
      { hostname: 'app.example.com', port: 443, https: true },
      { ...common, forceTLS: true },
    ],
    [
      'a self-hosted server: its public WebSocket address',
      selfHosted,
      { hostname: 'app.example.com', port: 443, https: true },
      {
        ...common,
        forceTLS: false,
        wsHost: 'rt.example.com',
        wsPort: 6002,
        wssPort: 6002,
        enabledTransports: ['ws', 'wss'],
      },
    ],
    [
      'the embedded endpoint over HTTPS: the host and port the page came from, wss',
      { kind: 'embedded' },
      { hostname: 'lb.example.com', port: 8443, https: true },
      {
        ...common,
        forceTLS: true,
        wsHost: 'lb.example.com',
        wsPort: 8443,
        wssPort: 8443,
        enabledTransports: ['ws', 'wss'],
      },
    ],
  ])('%s', (_name, target, origin, options) => {
    expect(realtimeSettings(credentials, target, origin, user)).toEqual({
      key: 'app-key',
      options,
      channels: { user: 'presence-user-7', account: 'private-account-3' },
    });
  });
});

describe('where the pusher library publishes', () => {
  const self = { host: '0.0.0.0', port: 3000, https: false };
  const base = { appId: '42', key: 'app-key', secret: 's3cret-s3cret-s3', timeout: 5000 };

  it('hosted: by cluster, over TLS', () => {
    expect(publisherOptions(credentials, { kind: 'hosted' }, self)).toEqual({
      ...base,
      cluster: 'us2',
      useTLS: true,
    });
  });

  it('self-hosted: its HTTP API host and port', () => {
    expect(publisherOptions(credentials, selfHosted, self)).toEqual({
      ...base,
      host: 'soketi.internal',
      port: '6001',
      useTLS: false,
    });
  });

  it('embedded: this server on loopback (0.0.0.0 is reached at 127.0.0.1)', () => {
    expect(publisherOptions(credentials, { kind: 'embedded' }, self)).toEqual({
      ...base,
      host: '127.0.0.1',
      port: '3000',
      useTLS: false,
    });
    const tls = publisherOptions(credentials, { kind: 'embedded' }, { ...self, https: true });
    expect(tls).toMatchObject({ useTLS: true, host: '127.0.0.1' });
    expect(tls.agent).toBeDefined();
  });
});
