/**
 * Single sign-on through an OpenID Connect provider (Google directly, or a broker such as
 * WorkOS, Okta or Keycloak), with `openid-client`: the authorization-code flow with PKCE, `state`
 * and `nonce`. `begin` stores what the callback must check under a fresh browser cookie and
 * answers the provider's address; `finish` takes that record once (a second use finds nothing),
 * exchanges the code, lets `openid-client` check the ID token (signature, issuer, audience,
 * expiry, nonce), then applies Leadline's rules: a verified e-mail, a user with that e-mail
 * (any case) whose account allows single sign-on, from its allowed e-mail domain if it sets one
 * (`sso_domain`), from an allowed Google Workspace (`hd`) and Entra tenant (`tid`) if its policy
 * lists them (claims of the ID token itself, not the e-mail's text), and bound to the ID token's
 * `iss` + `sub` (bound at the first sign-in; another identity with the same e-mail is refused).
 * Every failure is one of the `SsoErrorCode`s the login view explains; a refused sign-on
 * changes nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lte } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { SSO_CALLBACK_PATH, type SsoErrorCode } from '@leadline/contracts';
import type { Db } from '../db/database';
import { claimAllowed, ssoPolicyOf } from '../accounts/account-policy';
import { accounts, ssoAttempts } from '../db/schema';
import { findUserByEmail } from '../users/users-repo';
import { checkSsoIdentity, type SsoIdentityCheck } from './sso-identity';
import type { SsoProviderSettings } from '../config';

/** How long a sign-on may take from the link to the callback. */
export const SSO_ATTEMPT_MS = 10 * 60_000;

export interface SingleSignOnOptions {
  db: Db;
  provider: SsoProviderSettings;
  /** Milliseconds (injectable for tests). */
  now?: () => number;
  /** Seconds added to the clock that checks the ID token's times (tests: an expired token). */
  clockSkewSeconds?: number;
}

/** A sign-on failed: why, as the login view says it. */
export class SsoError extends Error {
  constructor(
    readonly code: SsoErrorCode,
    detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

const hash = (cookie: string): string => createHash('sha256').update(cookie).digest('hex');

/** Loopback issuers (tests, a provider on the same machine) may use plain HTTP. */
const isLoopback = (url: URL): boolean =>
  ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

export class SingleSignOn {
  #configuration: Promise<oidc.Configuration> | null = null;
  readonly #now: () => number;

  constructor(private readonly options: SingleSignOnOptions) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Starts a sign-on from a request to `origin`: returns the provider's authorization address
   * and the cookie that binds the attempt to this browser.
   */
  async begin(origin: string): Promise<{ url: URL; cookie: string }> {
    const configuration = await this.#discover();
    const cookie = randomBytes(32).toString('base64url');
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const redirectUrl = this.options.provider.redirectUrl ?? `${origin}${SSO_CALLBACK_PATH}`;
    const now = new Date(this.#now());
    const { db } = this.options;
    await db.delete(ssoAttempts).where(lte(ssoAttempts.expiresAt, now));
    await db.insert(ssoAttempts).values({
      cookieHash: hash(cookie),
      state,
      nonce,
      codeVerifier,
      redirectUrl,
      expiresAt: new Date(now.getTime() + SSO_ATTEMPT_MS),
    });
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUrl,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, cookie };
  }

  /**
   * The provider sent the browser back to the callback with `query` (and the attempt's
   * `cookie`): resolves with the user to sign in, or throws `SsoError`. Only the query is read
   * from the request; the callback's address is the one the attempt registered.
   */
  async finish(query: URLSearchParams, cookie: string | undefined): Promise<{ userId: number }> {
    const attempt = cookie ? await this.#takeAttempt(cookie) : null;
    if (!attempt) throw new SsoError('expired', 'no sign-on in progress for this browser');
    if (query.has('error')) {
      throw new SsoError('provider_error', query.get('error') ?? undefined);
    }
    if (query.get('state') !== attempt.state) {
      throw new SsoError('expired', 'state does not match');
    }
    const configuration = await this.#discover();
    // openid-client reads the code from the address the provider redirected to.
    const current = new URL(attempt.redirectUrl);
    current.search = query.toString();
    let identity: { readonly [claim: string]: unknown };
    let idToken: oidc.IDToken;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new SsoError('invalid_response', 'no ID token');
      idToken = claims;
      // Google puts the e-mail in the ID token; other providers answer it at userinfo only.
      identity =
        typeof claims.email === 'string'
          ? claims
          : await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    } catch (error) {
      throw error instanceof SsoError ? error : classify(error);
    }
    const email = typeof identity.email === 'string' ? identity.email : null;
    if (!email) throw new SsoError('unknown_user', 'the provider gave no e-mail');
    if (identity.email_verified !== true) throw new SsoError('email_not_verified');
    const user = await findUserByEmail(this.options.db, email);
    // A user an admin deactivated (issue 37) is nobody to sign in.
    if (!user?.active) throw new SsoError('unknown_user');
    const [account] = await this.options.db
      .select({
        enabled: accounts.ssoEnabled,
        domain: accounts.ssoDomain,
        policy: accounts.policy,
      })
      .from(accounts)
      .where(eq(accounts.id, user.accountId));
    if (!account?.enabled) throw new SsoError('sso_disabled');
    // The e-mail's text: which of the account's addresses sign on (not proof of membership).
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (account.domain && domain !== account.domain.toLowerCase()) {
      throw new SsoError('domain_not_allowed');
    }
    // Membership, as the provider signs it into the ID token: Google's `hd` is present only for
    // a Workspace-managed account, Entra's `tid` names the directory the person belongs to.
    const policy = ssoPolicyOf(account.policy);
    const unreadable = policy.problems.length ? ` (policy: ${policy.problems.join('; ')})` : '';
    if (!claimAllowed(policy.hostedDomains, idToken.hd)) {
      throw new SsoError('workspace_not_allowed', `hd ${JSON.stringify(idToken.hd)}${unreadable}`);
    }
    if (!claimAllowed(policy.tenantIds, idToken.tid)) {
      throw new SsoError('tenant_not_allowed', `tid ${JSON.stringify(idToken.tid)}${unreadable}`);
    }
    const check = await checkSsoIdentity(this.options.db, user, {
      issuer: idToken.iss,
      subject: idToken.sub,
    });
    const refusal = IDENTITY_REFUSALS[check];
    if (refusal) throw new SsoError(refusal, `${idToken.iss} ${idToken.sub}`);
    return { userId: user.id };
  }

  /** The attempt of this cookie, removed so that it serves once; null if none or expired. */
  async #takeAttempt(cookie: string) {
    const [attempt] = await this.options.db
      .delete(ssoAttempts)
      .where(
        and(
          eq(ssoAttempts.cookieHash, hash(cookie)),
          gt(ssoAttempts.expiresAt, new Date(this.#now())),
        ),
      )
      .returning();
    return attempt ?? null;
  }

  /** The provider's configuration, discovered once (again after a failure). */
  #discover(): Promise<oidc.Configuration> {
    if (!this.#configuration) {
      const { provider, clockSkewSeconds } = this.options;
      const issuer = new URL(provider.issuer);
      this.#configuration = oidc
        .discovery(
          issuer,
          provider.clientId,
          {
            client_secret: provider.clientSecret,
            ...(clockSkewSeconds ? { [oidc.clockSkew]: clockSkewSeconds } : {}),
          },
          oidc.ClientSecretBasic(provider.clientSecret),
          isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {},
        )
        .catch((error: unknown) => {
          this.#configuration = null;
          throw new SsoError('provider_error', `discovery failed: ${String(error)}`);
        });
    }
    return this.#configuration;
  }
}

/** The identity checks that refuse the sign-on, and why. */
const IDENTITY_REFUSALS: Record<SsoIdentityCheck, SsoErrorCode | null> = {
  bound: null,
  bound_now: null,
  bound_to_another: 'identity_mismatch',
  taken: 'identity_in_use',
};

/**
 * An error of the code exchange or the ID token's checks: the provider refused (an OAuth error
 * such as a code used twice) → provider_error; the answer did not check out (nonce, expiry,
 * signature, issuer, audience) → invalid_response.
 */
function classify(error: unknown): SsoError {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return new SsoError('provider_error', `${error.error}: ${error.error_description ?? ''}`);
  }
  return new SsoError('invalid_response', error instanceof Error ? error.message : String(error));
}
