import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, TWILIO_NEEDS_PRODUCTION } from './config';

describe('configuration', () => {
  it('defaults to plain HTTP and our SDK', () => {
    const config = loadConfig({});
    expect(config.tls).toEqual({ mode: 'off' });
    expect(config.voiceSdk).toBe('leadline');
  });

  it('TLS=self-signed, or the operator’s TLS_CERT and TLS_KEY', () => {
    expect(loadConfig({ TLS: 'self-signed' }).tls).toEqual({ mode: 'self-signed' });
    expect(loadConfig({ TLS_CERT: '/etc/c.pem', TLS_KEY: '/etc/k.pem' }).tls).toEqual({
      mode: 'files',
      certPath: '/etc/c.pem',
      keyPath: '/etc/k.pem',
    });
  });

  it.each([
    [{ TLS_CERT: '/etc/c.pem' }, 'TLS_CERT and TLS_KEY go together: set both, or neither.'],
    [{ TLS_KEY: '/etc/k.pem' }, 'TLS_CERT and TLS_KEY go together: set both, or neither.'],
    [
      { TLS: 'self-signed', TLS_CERT: '/c', TLS_KEY: '/k' },
      'Set either TLS=self-signed or TLS_CERT and TLS_KEY, not both.',
    ],
    [{ TLS: 'yes' }, /^Invalid setting TLS:/],
    [{ VOICE_SDK: 'other' }, /^Invalid setting VOICE_SDK:/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('VOICE_SDK=twilio picks the official SDK', () => {
    expect(loadConfig({ VOICE_SDK: 'twilio' }).voiceSdk).toBe('twilio');
  });

  it('realtime: the embedded endpoint by default, hosted Pusher by cluster, or a self-hosted server', () => {
    expect(loadConfig({}).realtime).toEqual({ kind: 'embedded' });
    const secret = { PUSHER_SECRET: 'a-secret-of-sixteen+' };
    expect(loadConfig({ REALTIME_PROVIDER: 'pusher', ...secret }).realtime).toEqual({
      kind: 'hosted',
    });
    expect(
      loadConfig({
        REALTIME_PROVIDER: 'pusher',
        PUSHER_HOST: 'soketi.internal',
        PUSHER_PORT: '6001',
        PUSHER_USE_TLS: 'false',
        PUSHER_WS_HOST: 'rt.example.com',
        ...secret,
      }).realtime,
    ).toEqual({
      kind: 'self-hosted',
      host: 'soketi.internal',
      port: 6001,
      useTLS: false,
      wsHost: 'rt.example.com',
      wsPort: 6001,
    });
  });

  it('FRAME_ANCESTORS lists the origins that may frame the console', () => {
    expect(loadConfig({}).frameAncestors).toEqual([]);
    expect(
      loadConfig({ FRAME_ANCESTORS: 'https://crm.example.com  https://app.hubspot.com' })
        .frameAncestors,
    ).toEqual(['https://crm.example.com', 'https://app.hubspot.com']);
    expect(() => loadConfig({ FRAME_ANCESTORS: 'crm.example.com/path' })).toThrow(
      'FRAME_ANCESTORS lists origins such as https://crm.example.com, separated by spaces',
    );
  });

  it('VOICE_MEDIA_URL makes a relaying instance, which shares the database and secrets', () => {
    const shared = {
      DATABASE_URL: 'postgres://db/leadline',
      TOKEN_SECRET: 't'.repeat(32),
      PUSHER_SECRET: 'p'.repeat(16),
    };
    expect(loadConfig({ ...shared, VOICE_MEDIA_URL: 'http://10.0.0.5:3000/' }).mediaUrl).toBe(
      'http://10.0.0.5:3000',
    );
    expect(loadConfig({}).mediaUrl).toBeUndefined();
  });

  it('INSTANCE_URL names where the other instances reach this one when it leads the media', () => {
    expect(loadConfig({ INSTANCE_URL: 'http://10.0.0.6:3000/' }).instanceUrl).toBe(
      'http://10.0.0.6:3000',
    );
    expect(loadConfig({}).instanceUrl).toBeUndefined();
    expect(() => loadConfig({ INSTANCE_URL: 'ws://10.0.0.6:3000' })).toThrow(
      /^Invalid setting INSTANCE_URL: INSTANCE_URL must be an http/,
    );
  });

  it('INSTANCE_URLS lists the leaders a follower relays to; an entry it cannot read is named', () => {
    const { allowedInstances } = loadConfig({
      INSTANCE_URLS: 'https://10.0.0.5:3000, 10.0.1.0/24',
    });
    expect(allowedInstances.origins).toEqual(['https://10.0.0.5:3000']);
    expect(allowedInstances.ranges.map(([range, bits]) => `${range.toString()}/${bits}`)).toEqual([
      '10.0.1.0/24',
    ]);
    expect(() => loadConfig({ INSTANCE_URLS: 'https://10.0.0.5:3000,media-2' })).toThrow(
      "Invalid setting INSTANCE_URLS: 'media-2' is neither a URL nor an address or CIDR range: list the instances' base URLs (https://10.0.0.5:3000) or their network (10.0.0.0/24), comma-separated.",
    );
    expect(() => loadConfig({ INSTANCE_NETWORK: 'lan' })).toThrow(
      /^Invalid setting INSTANCE_NETWORK: INSTANCE_NETWORK is private/,
    );
  });

  it.each([
    [
      { VOICE_MEDIA_URL: 'http://10.0.0.5:3000' },
      "An instance relaying to VOICE_MEDIA_URL shares the media instance's database and secrets: set DATABASE_URL, TOKEN_SECRET, PUSHER_SECRET as on the media instance.",
    ],
    [
      { VOICE_MEDIA_URL: 'ftp://10.0.0.5' },
      /^Invalid setting VOICE_MEDIA_URL: VOICE_MEDIA_URL must be an http/,
    ],
    [{ VOICE_MEDIA_URL: 'media' }, /^Invalid setting VOICE_MEDIA_URL:/],
    [{ PUSHER_HOST: 'soketi' }, 'PUSHER_HOST and PUSHER_WS_HOST need REALTIME_PROVIDER=pusher.'],
    [
      { REALTIME_PROVIDER: 'pusher' },
      'REALTIME_PROVIDER=pusher needs PUSHER_KEY, PUSHER_APP_ID and PUSHER_SECRET of that app.',
    ],
    [{ REALTIME_PROVIDER: 'ably' }, /^Invalid setting REALTIME_PROVIDER:/],
    [
      {
        VOICE_MEDIA_URL: 'http://10.0.0.5:3000',
        LEADLINE_MODE: 'production',
        TELEPHONY_PROVIDER: 'twilio',
        DATABASE_URL: 'postgres://db/leadline',
        TOKEN_SECRET: 't'.repeat(32),
        PUSHER_SECRET: 'p'.repeat(16),
      },
      'VOICE_MEDIA_URL relays to an embedded voice engine; with TELEPHONY_PROVIDER=twilio every instance is equal: leave VOICE_MEDIA_URL unset on each (docs/deployment.md, several Twilio instances).',
    ],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  describe('TELEPHONY_PROVIDER=twilio', () => {
    const hex = (n: number, c = 'a') => c.repeat(n);
    /** What production needs besides (config.ts); Twilio runs only in production. */
    const production = {
      LEADLINE_MODE: 'production',
      DATABASE_URL: 'postgres://db/leadline',
      TOKEN_SECRET: 't'.repeat(32),
      PUSHER_SECRET: 'p'.repeat(16),
    };
    const twilio = {
      ...production,
      TELEPHONY_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: `AC${hex(32)}`,
      TWILIO_API_KEY: `SK${hex(32, 'b')}`,
      TWILIO_API_SECRET: 'S'.repeat(32),
      TWILIO_TWIML_APP_SID: `AP${hex(32, 'c')}`,
      TWILIO_AUTH_TOKEN: hex(32, 'd'),
      PUBLIC_BASE_URL: 'https://calls.example.com/',
    };

    it('takes the account, the API key, the TwiML app, the auth token and the public address', () => {
      const config = loadConfig(twilio);
      expect(config.telephony).toEqual({
        provider: 'twilio',
        accountSid: twilio.TWILIO_ACCOUNT_SID,
        apiKey: twilio.TWILIO_API_KEY,
        apiSecret: twilio.TWILIO_API_SECRET,
        twimlAppSid: twilio.TWILIO_TWIML_APP_SID,
        authToken: twilio.TWILIO_AUTH_TOKEN,
        publicBaseUrl: 'https://calls.example.com',
        apiBaseUrl: 'https://api.twilio.com',
      });
      // Twilio's edge speaks only to the official SDK.
      expect(config.voiceSdk).toBe('twilio');
      expect(loadConfig({}).telephony).toEqual({ provider: 'embedded' });
    });

    it('is refused in embedded mode, with the fix named', () => {
      const embedded = { ...twilio, LEADLINE_MODE: 'embedded' };
      expect(() => loadConfig(embedded)).toThrow(ConfigError);
      expect(() => loadConfig(embedded)).toThrow(TWILIO_NEEDS_PRODUCTION);
      expect(TWILIO_NEEDS_PRODUCTION).toBe(
        'TELEPHONY_PROVIDER=twilio needs LEADLINE_MODE=production: Twilio reaches this server from the internet, where the demo logins and demo-api-key must not be. Set LEADLINE_MODE=production with DATABASE_URL, TOKEN_SECRET, PUSHER_SECRET and a LEADLINE_API_KEY of your own (docs/deployment.md).',
      );
      const { LEADLINE_MODE: _default, ...unset } = twilio;
      expect(() => loadConfig(unset)).toThrow(TWILIO_NEEDS_PRODUCTION);
    });

    it('names every missing or malformed value, one per line', () => {
      const env = {
        ...production,
        TELEPHONY_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: 'AC123',
        TWILIO_API_SECRET: 'S'.repeat(32),
        TWILIO_TWIML_APP_SID: `AP${hex(32, 'c')}`,
        TWILIO_AUTH_TOKEN: 'not-hex',
        PUBLIC_BASE_URL: 'calls.example.com',
      };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(
        [
          'TELEPHONY_PROVIDER=twilio needs:',
          '- TWILIO_ACCOUNT_SID is malformed: the Account SID from the Twilio console (AC and 32 hex digits).',
          '- TWILIO_API_KEY is missing: an API key SID (SK and 32 hex digits; Account → API keys).',
          "- TWILIO_AUTH_TOKEN is malformed: the account's Auth Token, which signs webhooks (32 hex digits).",
          '- PUBLIC_BASE_URL is malformed: the address Twilio reaches this server at, e.g. https://calls.example.com.',
        ].join('\n'),
      );
    });
  });
});

describe('TRUST_PROXY and SESSION_IDLE_MINUTES (issue 36 item 3)', () => {
  it('TRUST_PROXY: nobody by default, a number of proxies, or their addresses and CIDR ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,loopback' }).trustProxy).toEqual([
      '10.0.0.5',
      '10.1.0.0/16',
      'loopback',
    ]);
    // Two proxies: the peer (hop 0) and the one before it are believed, the third hop is not.
    const twoHops = loadConfig({ TRUST_PROXY: '2' }).trustProxy;
    expect(typeof twoHops).toBe('function');
    const believes = twoHops as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => believes('203.0.113.9', hop))).toEqual([true, true, false]);
  });

  it('refuses TRUST_PROXY=true with a sentence naming the forms it takes', () => {
    for (const value of ['true', 'TRUE', 'yes', 'on']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        'Invalid setting TRUST_PROXY: true would believe every X-Forwarded-For hop, so any client could choose the address the login throttle and the rate limits see. Set how many proxies stand in front of the server (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5 or TRUST_PROXY=10.0.0.0/8, comma-separated).',
      );
    }
  });

  it('refuses a TRUST_PROXY entry that is no address, range or count', () => {
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.5,proxy.internal' })).toThrow(
      "Invalid setting TRUST_PROXY: 'proxy.internal' is neither a number of proxies nor a proxy address or CIDR range (e.g. TRUST_PROXY=1, or TRUST_PROXY=10.0.0.5,10.1.0.0/16).",
    );
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(ConfigError);
  });

  it('SESSION_IDLE_MINUTES: 60 by default, 5 to 43,200', () => {
    expect(loadConfig({}).sessionIdleMs).toBe(60 * 60_000);
    expect(loadConfig({ SESSION_IDLE_MINUTES: '15' }).sessionIdleMs).toBe(15 * 60_000);
    expect(() => loadConfig({ SESSION_IDLE_MINUTES: '4' })).toThrow(
      /^Invalid setting SESSION_IDLE_MINUTES: /,
    );
    expect(() => loadConfig({ SESSION_IDLE_MINUTES: '43201' })).toThrow(ConfigError);
  });
});

describe('RATE_LIMIT_*_PER_MINUTE (issue 36 item 6)', () => {
  it('the anonymous routes’ limits per address and minute: the defaults, or the settings', () => {
    expect(loadConfig({}).rateLimits).toEqual({
      'sign-in': 100,
      intake: 600,
      webhooks: 3000,
      sockets: 300,
    });
    expect(
      loadConfig({
        RATE_LIMIT_SIGN_IN_PER_MINUTE: '400',
        RATE_LIMIT_INTAKE_PER_MINUTE: '50',
        RATE_LIMIT_WEBHOOKS_PER_MINUTE: '10000',
        RATE_LIMIT_SOCKETS_PER_MINUTE: '1200',
      }).rateLimits,
    ).toEqual({ 'sign-in': 400, intake: 50, webhooks: 10000, sockets: 1200 });
  });

  it.each(['0', '-5', '2.5', 'many'])('refuses %s as a limit', (value) => {
    expect(() => loadConfig({ RATE_LIMIT_SOCKETS_PER_MINUTE: value })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_LIMIT_SOCKETS_PER_MINUTE: value })).toThrow(
      /^Invalid setting RATE_LIMIT_SOCKETS_PER_MINUTE: /,
    );
  });
});

describe("DIAL_* (the operator's dialling ceiling)", () => {
  it('by default: the United States, Canada and the United Kingdom; 10 and 120 calls a minute; 600 texts an hour', () => {
    expect(loadConfig({}).dialCeiling).toEqual({
      countries: new Set(['US', 'CA', 'GB']),
      callsPerMinutePerAgent: 10,
      callsPerMinutePerAccount: 120,
      smsPerHour: 600,
    });
  });

  it('the settings: countries in any case, comma- or space-separated, or * for every one', () => {
    expect(
      loadConfig({
        DIAL_ALLOWED_COUNTRIES: 'us, gb FR',
        DIAL_MAX_CALLS_PER_MINUTE_PER_AGENT: '4',
        DIAL_MAX_CALLS_PER_MINUTE_PER_ACCOUNT: '400',
        DIAL_MAX_SMS_PER_HOUR: '2000',
      }).dialCeiling,
    ).toEqual({
      countries: new Set(['US', 'GB', 'FR']),
      callsPerMinutePerAgent: 4,
      callsPerMinutePerAccount: 400,
      smsPerHour: 2000,
    });
    expect(loadConfig({ DIAL_ALLOWED_COUNTRIES: '*' }).dialCeiling.countries).toBe('any');
  });

  it.each([
    ['US,XX', "'XX' is not a country code"],
    ['USA', "'USA' is not a country code"],
    [' , ', 'no country given'],
  ])('refuses DIAL_ALLOWED_COUNTRIES=%j, saying what it takes', (value, why) => {
    expect(() => loadConfig({ DIAL_ALLOWED_COUNTRIES: value })).toThrow(
      `Invalid setting DIAL_ALLOWED_COUNTRIES: ${why}: list the ISO 3166-1 codes of the countries any account may call (e.g. DIAL_ALLOWED_COUNTRIES=US,CA,GB), or * for every country.`,
    );
  });

  it.each([
    ['0', 'must be at least 1'],
    ['2.5', 'must be a whole number'],
    ['many', 'must be a whole number'],
    ['100001', "may be at most 100000 (an account's policy cannot set more)"],
  ])('refuses %s as a ceiling: %s', (value, why) => {
    expect(() => loadConfig({ DIAL_MAX_SMS_PER_HOUR: value })).toThrow(
      `Invalid setting DIAL_MAX_SMS_PER_HOUR: ${why}`,
    );
  });
});
