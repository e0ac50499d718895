/**
 * The security headers on a response, read back as a browser would: the Content-Security-Policy
 * parsed into directives (no 'unsafe-inline', no upgrade of a plain-HTTP product's requests,
 * frames refused unless listed), nosniff, no referrer, HSTS only over TLS (in production on
 * every answer).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSourcesOf, registerSecurityHeaders, type SecurityPolicy } from './security-headers';

let app: FastifyInstance | undefined;
afterEach(() => app?.close());

async function headersOf(policy: SecurityPolicy, headers: Record<string, string> = {}) {
  app = Fastify({ trustProxy: true });
  await registerSecurityHeaders(app, policy);
  app.get('/', () => ({ ok: true }));
  const res = await app.inject({ method: 'GET', url: '/', headers });
  return res.headers;
}

/** `default-src 'self'; img-src 'self' data:` → { 'default-src': ["'self'"], … }. */
function parseCsp(value: unknown): Record<string, string[]> {
  const csp: Record<string, string[]> = {};
  for (const part of String(value).split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) csp[name] = sources;
  }
  return csp;
}

const NONE: SecurityPolicy = { frameAncestors: [], connectSources: [] };

describe('security headers', () => {
  it('a policy with nothing inline, frames refused, nosniff and no referrer', async () => {
    const headers = await headersOf(NONE);
    const csp = parseCsp(headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['object-src']).toEqual(["'none'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(Object.values(csp).flat()).not.toContain("'unsafe-inline'");
    expect(Object.values(csp).flat()).not.toContain("'unsafe-eval'");
    // A plain-HTTP LAN product must keep loading its own http: resources.
    expect(csp).not.toHaveProperty('upgrade-insecure-requests');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['strict-transport-security']).toBeUndefined();
  });

  it('HSTS only on a request that came over TLS', async () => {
    const headers = await headersOf(NONE, { 'x-forwarded-proto': 'https' });
    expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('HSTS on every answer in production, whatever the request’s scheme', async () => {
    const headers = await headersOf({ ...NONE, httpsOnly: true });
    expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('the CRMs listed may frame the console; the providers’ hosts may be reached', async () => {
    const headers = await headersOf({
      frameAncestors: ['https://crm.example.com', 'https://app.hubspot.com'],
      connectSources: connectSourcesOf({
        realtime: { kind: 'hosted' },
        pusherCluster: 'eu',
        twilio: true,
      }),
    });
    const csp = parseCsp(headers['content-security-policy']);
    expect(csp['frame-ancestors']).toEqual(['https://crm.example.com', 'https://app.hubspot.com']);
    expect(headers['x-frame-options']).toBeUndefined();
    expect(csp['connect-src']).toEqual([
      "'self'",
      'wss://ws-eu.pusher.com',
      'https://*.twilio.com',
      'wss://*.twilio.com',
    ]);
  });

  it('a self-hosted realtime server is reached where browsers reach it', () => {
    expect(
      connectSourcesOf({
        realtime: {
          kind: 'self-hosted',
          host: 'soketi.internal',
          port: 6001,
          useTLS: false,
          wsHost: 'rt.example.com',
          wsPort: 443,
        },
        pusherCluster: 'us2',
        twilio: false,
      }),
    ).toEqual(['ws://rt.example.com:443', 'wss://rt.example.com:443']);
    expect(
      connectSourcesOf({ realtime: { kind: 'embedded' }, pusherCluster: 'us2', twilio: false }),
    ).toEqual([]);
  });
});
