/**
 * Single sign-on (OpenID Connect): the console's 'Log in with Google' link goes to
 * `SSO_LOGIN_PATH`; the provider answers at `SSO_CALLBACK_PATH`. A sign-on that fails comes back
 * to the login view as `/?sso_error=<code>`, one of these, whose sentence the view shows (codes,
 * not text, travel in the address: nobody can put their own words on the login page). No
 * imports: the console's login view loads this module alone.
 */
export const SSO_LOGIN_PATH = '/apps/workos/login/google';
export const SSO_CALLBACK_PATH = '/apps/workos/callback';
export const SSO_ERROR_PARAM = 'sso_error';
export const SSO_ERRORS = {
  not_configured: 'Single sign-on is not configured.',
  unknown_user: 'No Leadline user has this e-mail address.',
  email_not_verified: 'Your e-mail address is not verified by the sign-in provider.',
  sso_disabled: 'Single sign-on is not enabled for your account.',
  domain_not_allowed: 'Your e-mail domain may not sign in with single sign-on.',
  workspace_not_allowed: 'Your Google Workspace may not sign in to this Leadline account.',
  tenant_not_allowed: 'Your Microsoft Entra tenant may not sign in to this Leadline account.',
  identity_mismatch:
    'Your Leadline user is linked to a different sign-in account. Sign in with that account, or ask your administrator to unlink it.',
  identity_in_use: 'This sign-in account is already linked to another Leadline user.',
  expired: 'This sign-in has expired or was already used. Please try again.',
  provider_error: 'The sign-in provider could not sign you in. Please try again.',
  invalid_response: 'The sign-in could not be verified. Please try again.',
} as const;
export type SsoErrorCode = keyof typeof SSO_ERRORS;

/** Answer of GET /api/v1/login/options (public): what the login view offers. */
export interface LoginOptionsResponse {
  success: true;
  /** Whether 'Log in with Google' (single sign-on) is configured. */
  sso: boolean;
}
