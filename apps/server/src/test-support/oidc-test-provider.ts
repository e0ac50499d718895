/**
 * A real OpenID Connect provider on loopback for single sign-on tests: `oidc-provider` with its
 * own login and consent pages (dev interactions: any login name, any password), one confidential
 * client, and the accounts the test gives (login name → `sub`, e-mail claims, and Google's
 * `hd` or Entra's `tid` in the ID token as those providers put them). It listens first (so the
 * issuer is known), then `configure` registers the client's redirect addresses once the
 * Leadline servers under test listen too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * What the provider says about a person who signs in with a login name (the login name is
 * their `sub`, so two login names with one e-mail are two people claiming one address).
 */
export interface TestIdentity {
  email: string;
  email_verified: boolean;
  /** Google's hosted domain: the Workspace that manages the account (in the ID token). */
  hd?: string;
  /** Microsoft Entra's tenant id: the directory the person belongs to (in the ID token). */
  tid?: string;
}

export const TEST_CLIENT = { id: 'leadline-test', secret: 'leadline-test-secret-0123456789' };

export interface TestProvider {
  issuer: string;
  /** Registers the client (its redirect addresses) and the people who can sign in. */
  configure(redirectUris: string[], identities: Record<string, TestIdentity>): void;
  close(): Promise<void>;
}

export async function startTestProvider(): Promise<TestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('not configured yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    configure(redirectUris, identities) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: TEST_CLIENT.id,
            client_secret: TEST_CLIENT.secret,
            redirect_uris: redirectUris,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        // `hd` and `tid` ride with `openid`: in the ID token itself, as Google and Entra send
        // them; the e-mail is answered at userinfo only (what a broker may do).
        claims: {
          openid: ['sub', 'hd', 'tid'],
          email: ['email', 'email_verified'],
          profile: ['name'],
        },
        cookies: { keys: ['oidc-test-provider-cookie-key'] },
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        findAccount(_ctx, sub) {
          const identity = identities[sub];
          if (!identity) return undefined;
          return {
            accountId: sub,
            claims: () => ({ sub, name: sub, ...identity }),
          };
        },
      });
      // The dev pages warn that they are for development; this is a test.
      provider.on('server_error', (_ctx, error) => console.error('oidc test provider', error));
      const callback = provider.callback();
      handler = (req, res) => void callback(req, res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
