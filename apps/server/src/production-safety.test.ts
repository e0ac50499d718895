/**
 * Production's start-up refusals that the settings alone show, each with its sentence, and the
 * warning of an embedded start listening beyond loopback (issue 36, item 1). The database's
 * part (the demo seed's logins and key) is in `db/demo-removal.integration.test.ts`; the whole
 * start as `npm start` runs it in `production-start.integration.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import type { Database } from './db/database';
import {
  UnsafeProductionError,
  exposureWarning,
  isLoopbackHost,
  productionSettingProblems,
  refuseUnsafeProduction,
} from './production-safety';
import { TWILIO_TEST_ENV } from './test-support/twilio-leadline';

/** A production environment with nothing wrong. */
const SAFE = {
  LEADLINE_MODE: 'production',
  DATABASE_URL: 'postgres://db.internal/leadline',
  TOKEN_SECRET: 'token-secret-0123456789abcdef-0123456789',
  PUSHER_SECRET: 'pusher-secret-0123456789abcdef',
  LEADLINE_API_KEY: 'intake-key-0123456789abcdef-0123456789',
};

const DEMO_KEY =
  "LEADLINE_API_KEY is the demo's key (demo-api-key), published in the README: set a random key of at least 32 characters (openssl rand -hex 32).";
const SAME_SECRETS =
  'TOKEN_SECRET equals PUSHER_SECRET: give each its own random value (openssl rand -hex 32).';
const twilioBase = (url: string) =>
  `TWILIO_API_BASE_URL is ${url}: it must be Twilio's API (https://api.twilio.com) or a stand-in on a loopback address (tests). Unset it.`;

const problemsOf = (env: Record<string, string>) =>
  productionSettingProblems(loadConfig({ ...SAFE, ...env }));

describe('production settings', () => {
  it('a production install of its own keys and secrets has no problem', () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ ...TWILIO_TEST_ENV })).toEqual([]);
  });

  it.each([
    [{ LEADLINE_API_KEY: 'demo-api-key' }, DEMO_KEY],
    [
      { LEADLINE_API_KEY: 'intake-key-0123456789abcdef-012' },
      'LEADLINE_API_KEY has 31 characters: a lead-intake key needs at least 32 (openssl rand -hex 32).',
    ],
    [{ PUSHER_SECRET: SAFE.TOKEN_SECRET }, SAME_SECRETS],
    [
      { ...TWILIO_TEST_ENV, TWILIO_API_BASE_URL: 'https://api.twilio.example.com' },
      twilioBase('https://api.twilio.example.com'),
    ],
    [
      { ...TWILIO_TEST_ENV, TWILIO_API_BASE_URL: 'http://api.twilio.com' },
      twilioBase('http://api.twilio.com'),
    ],
    [
      { ...TWILIO_TEST_ENV, TWILIO_API_BASE_URL: 'http://10.0.0.7:4010' },
      twilioBase('http://10.0.0.7:4010'),
    ],
  ])('refuses %j', (env, sentence) => {
    expect(problemsOf(env)).toEqual([sentence]);
  });

  it('names every problem, in one list', () => {
    expect(
      problemsOf({
        LEADLINE_API_KEY: 'demo-api-key',
        PUSHER_SECRET: SAFE.TOKEN_SECRET,
        ...TWILIO_TEST_ENV,
        TWILIO_API_BASE_URL: 'https://twilio.attacker.example',
      }),
    ).toEqual([DEMO_KEY, SAME_SECRETS, twilioBase('https://twilio.attacker.example')]);
  });

  it.each([
    'https://api.twilio.com',
    'http://127.0.0.1:4010',
    'http://127.0.0.2:4010',
    'http://localhost:4010',
    'http://[::1]:4010',
  ])("takes Twilio's API or a loopback stand-in: %s", (url) => {
    expect(problemsOf({ ...TWILIO_TEST_ENV, TWILIO_API_BASE_URL: url })).toEqual([]);
  });

  const plainInstances = (name: string, url: string) =>
    `${name} is ${url}, plain HTTP to another machine: a follower relays the browsers' session cookies, CSRF tokens and intake keys there: use https://, or set INSTANCE_NETWORK=private if the instances reach each other over a network only they use (docs/deployment.md).`;
  it.each([
    [
      { INSTANCE_URL: 'http://10.0.0.5:3000' },
      [plainInstances('INSTANCE_URL', 'http://10.0.0.5:3000')],
    ],
    [
      { VOICE_MEDIA_URL: 'http://10.0.0.5:3000' },
      [plainInstances('VOICE_MEDIA_URL', 'http://10.0.0.5:3000')],
    ],
    [
      { INSTANCE_URLS: 'https://10.0.0.5:3000,http://10.0.0.6:3000,10.0.1.0/24' },
      [
        "INSTANCE_URLS lists http://10.0.0.6:3000, plain HTTP to another machine: a follower relays the browsers' session cookies, CSRF tokens and intake keys there: use https://, or set INSTANCE_NETWORK=private if the instances reach each other over a network only they use (docs/deployment.md).",
      ],
    ],
    [{ INSTANCE_URL: 'https://10.0.0.5:3000', INSTANCE_URLS: '10.0.0.0/24' }, []],
    [{ INSTANCE_URL: 'http://127.0.0.1:3000' }, []],
    [{ INSTANCE_URL: 'http://10.0.0.5:3000', INSTANCE_NETWORK: 'private' }, []],
    [
      {
        INSTANCE_URLS: 'http://10.0.0.6:3000',
        VOICE_MEDIA_URL: 'http://10.0.0.5:3000',
        INSTANCE_NETWORK: 'private',
      },
      [],
    ],
  ])('the instances’ own traffic: %j', (env, problems) => {
    expect(problemsOf(env)).toEqual(problems);
  });

  const SSO = {
    OIDC_ISSUER: 'https://accounts.example.com',
    OIDC_CLIENT_ID: 'leadline',
    OIDC_CLIENT_SECRET: 'oidc-client-secret',
  };
  it.each([
    [
      SSO,
      [
        "Single sign-on is on without OIDC_REDIRECT_URL: the provider's redirect would be built from each request's Host header. Set OIDC_REDIRECT_URL to the callback registered with the provider (https://<your host>/apps/workos/callback).",
      ],
    ],
    [
      { ...SSO, OIDC_REDIRECT_URL: 'http://calls.example.com/apps/workos/callback' },
      [
        "OIDC_REDIRECT_URL is http://calls.example.com/apps/workos/callback: the provider sends the sign-in's code there, so it must be https://.",
      ],
    ],
    [{ ...SSO, OIDC_REDIRECT_URL: 'https://calls.example.com/apps/workos/callback' }, []],
  ])('single sign-on: %j', (env, problems) => {
    expect(problemsOf(env)).toEqual(problems);
  });

  it('refuses Twilio webhooks over plain HTTP', () => {
    expect(problemsOf({ ...TWILIO_TEST_ENV, PUBLIC_BASE_URL: 'http://calls.example.com' })).toEqual(
      [
        "PUBLIC_BASE_URL is http://calls.example.com: Twilio's webhooks (with the calls' numbers) and the agents' voice URL would cross the internet unencrypted. Serve it over https:// (docs/deployment.md).",
      ],
    );
  });

  it('embedded mode is the demo: none of this applies', () => {
    expect(productionSettingProblems(loadConfig({}))).toEqual([]);
  });
});

describe('the start refused', () => {
  // As Drizzle's migrator fails when nothing listens: the driver's error is the cause.
  const unreachable = new Error('Failed query: CREATE SCHEMA IF NOT EXISTS "drizzle"\nparams: ', {
    cause: new Error('connect ECONNREFUSED 127.0.0.1:1'),
  });
  const refusedDatabase = async (): Promise<Database> => {
    throw unreachable;
  };

  it('names the settings’ problems, and that the database could not be checked, one per line', async () => {
    const config = loadConfig({ ...SAFE, LEADLINE_API_KEY: 'demo-api-key' });
    const refused = await refuseUnsafeProduction(config, refusedDatabase).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UnsafeProductionError);
    expect((refused as Error).message).toBe(
      [
        'Leadline refuses to start in production mode:',
        `- ${DEMO_KEY}`,
        "- The database at DATABASE_URL could not be checked for the demo seed's logins: connect ECONNREFUSED 127.0.0.1:1",
      ].join('\n'),
    );
  });

  it('a database that cannot be opened, alone, fails the start with its own error', async () => {
    await expect(refuseUnsafeProduction(loadConfig(SAFE), refusedDatabase)).rejects.toBe(
      unreachable,
    );
  });

  it('embedded mode opens nothing', async () => {
    let opened = false;
    await refuseUnsafeProduction(loadConfig({}), () => {
      opened = true;
      return refusedDatabase();
    });
    expect(opened).toBe(false);
  });
});

describe('an embedded start beyond loopback', () => {
  const warning = (host: string, key = ' and the API key demo-api-key') =>
    `HOST=${host} listens beyond this machine in embedded mode: the demo logins (password leadline-demo, published in the README)${key} are reachable from the network. Keep HOST=127.0.0.1 for a trial on this machine, or run LEADLINE_MODE=production (docs/deployment.md).`;

  it('warns that the demo logins are reachable from the network', () => {
    expect(exposureWarning(loadConfig({ HOST: '0.0.0.0' }))).toBe(warning('0.0.0.0'));
    expect(exposureWarning(loadConfig({ HOST: '192.168.1.20' }))).toBe(warning('192.168.1.20'));
    expect(exposureWarning(loadConfig({ HOST: '::' }))).toBe(warning('::'));
    expect(
      exposureWarning(loadConfig({ HOST: '0.0.0.0', LEADLINE_API_KEY: SAFE.LEADLINE_API_KEY })),
    ).toBe(warning('0.0.0.0', ''));
  });

  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])(
    'says nothing on loopback: %s',
    (host) => {
      expect(exposureWarning(loadConfig({ HOST: host }))).toBeNull();
    },
  );

  it('says nothing in production (no demo logins)', () => {
    expect(exposureWarning(loadConfig({ ...SAFE, HOST: '0.0.0.0' }))).toBeNull();
  });
});

describe('loopback addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.1', false],
    ['api.twilio.com', false],
    ['localhost.attacker.example', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
