import type { LoginBody } from '@leadline/contracts';
// The sign-on constants alone: the login view must not pull in the contracts' phone data.
import {
  SSO_ERROR_PARAM,
  SSO_ERRORS,
  SSO_LOGIN_PATH,
  type SsoErrorCode,
} from '@leadline/contracts/sso';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

/**
 * Why single sign-on sent the browser back here (`?sso_error=<code>`), as a sentence; null if
 * it did not (an unknown code says nothing: only our own sentences reach the page).
 */
export function ssoErrorOf(launchUrl: string): string | null {
  const code = new URL(launchUrl, 'http://console.invalid').searchParams.get(SSO_ERROR_PARAM);
  return code !== null && Object.hasOwn(SSO_ERRORS, code) ? SSO_ERRORS[code as SsoErrorCode] : null;
}

/**
 * Email and password login (the page reloads on success), and the Google single sign-on link
 * when the server has a provider configured.
 */
export function LoginView() {
  const { api, platform } = useServices();
  const emailRef = useFocusOnMount<HTMLInputElement>();
  const options = useQuery({
    queryKey: ['login-options'],
    queryFn: () => api.loginOptions(),
    staleTime: Infinity,
    retry: false,
  });
  // Shown until the agent tries again by password.
  const [ssoError] = useState(() => ssoErrorOf(platform.launchUrl));
  const login = useMutation({
    mutationFn: (body: LoginBody) => api.login(body),
    onSuccess: () => platform.reload(),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (login.isPending) return;
    const form = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : '';
    };
    login.mutate({ email: text('email').trim(), password: text('password') });
  };

  const busy = login.isPending || login.isSuccess;
  return (
    <section className="panel login" aria-labelledby="login-title">
      <h1 id="login-title" className="panel-title">
        Log in
      </h1>
      <p className="muted">Sign in to start taking calls.</p>
      <ErrorBanner
        message={login.error ? errorMessage(login.error) : login.isIdle ? ssoError : null}
      />
      <form className="form" onSubmit={onSubmit}>
        <label className="field">
          <span className="field-label">Email</span>
          <input
            ref={emailRef}
            className="input"
            type="email"
            name="email"
            autoComplete="username"
            required
          />
        </label>
        <label className="field">
          <span className="field-label">Password</span>
          <input
            className="input"
            type="password"
            name="password"
            autoComplete="current-password"
            required
          />
        </label>
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={busy}
          aria-busy={busy || undefined}
        >
          <span className="btn-label">{busy ? 'Logging in…' : 'Login'}</span>
        </button>
      </form>
      {options.data?.sso ? <SsoLink /> : null}
    </section>
  );
}

/** 'Log in with Google': the single sign-on link. */
function SsoLink() {
  return (
    <>
      <div className="divider">
        <span>or</span>
      </div>
      <a className="btn btn-secondary btn-block" href={SSO_LOGIN_PATH}>
        <svg viewBox="0 0 18 18" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            fill="#4285F4"
            d="M17.64 9.2c0-.64-.06-1.25-.16-1.84H9v3.48h4.84a4.14 4.14 0 0 1-1.8 2.72v2.26h2.92c1.7-1.57 2.68-3.88 2.68-6.62z"
          />
          <path
            fill="#34A853"
            d="M9 18c2.43 0 4.47-.8 5.96-2.18l-2.92-2.26c-.8.54-1.84.86-3.04.86-2.34 0-4.32-1.58-5.03-3.7H.96v2.33A9 9 0 0 0 9 18z"
          />
          <path
            fill="#FBBC05"
            d="M3.97 10.72a5.41 5.41 0 0 1 0-3.44V4.95H.96a9 9 0 0 0 0 8.1l3.01-2.33z"
          />
          <path
            fill="#EA4335"
            d="M9 3.58c1.32 0 2.5.45 3.44 1.35l2.58-2.58A9 9 0 0 0 .96 4.95l3.01 2.33C4.68 5.16 6.66 3.58 9 3.58z"
          />
        </svg>
        <span className="btn-label">Log in with Google</span>
      </a>
    </>
  );
}
