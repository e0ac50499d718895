import type { User } from '@leadline/contracts';
import { useMutation } from '@tanstack/react-query';
import { use, useEffect, useId, useRef, useState } from 'react';
import { QUERY_KEYS } from '../api/queries';
import { errorMessage } from '../errors';
import { PhoneOwnerContext } from '../phone-owner/use-phone-owner';
import { useOnline, useServices } from '../use-services';
import { AgentStatusControl } from '../views/agent-status-control';
import { Avatar } from '../ui/avatar';
import { Logo } from '../ui/logo';

/**
 * The navigation bar: the logo and, once a user is loaded, their Available / Away control and the
 * profile dropdown.
 */
export function NavBar({ user }: { readonly user: User | null }) {
  return (
    <header className="navbar">
      <Logo />
      {user && (
        <div className="navbar-end">
          <AgentStatusControl user={user} />
          <ProfileMenu user={user} />
        </div>
      )}
    </header>
  );
}

/** The profile button (picture with an online/offline ring) and its dropdown. */
function ProfileMenu({ user }: { readonly user: User }) {
  const { controller, queryClient, platform, writes } = useServices();
  const phoneOwner = use(PhoneOwnerContext);
  const online = useOnline();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  // Log out ends this browser's session; Log out everywhere every session of the user (their
  // other browsers and devices go to the login view too).
  const logout = useMutation({
    mutationFn: async (everywhere: boolean) => {
      // A write on its way finishes under this session; the rest waits for this user's return.
      await writes.stop();
      await controller.logout({ everywhere });
    },
    // The session is gone for this user's other tabs too: they reload onto the login view.
    onSuccess: () => phoneOwner?.announceLogout(),
    onError: (error) => platform.log.error(`Logging out failed: ${errorMessage(error)}`),
    onSettled: () => queryClient.setQueryData(QUERY_KEYS.user, null),
  });

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (event.target instanceof Node && !rootRef.current?.contains(event.target)) setOpen(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  const status = online ? 'Online' : 'Offline';
  return (
    <div className="profile" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className="profile-button"
        aria-expanded={open}
        aria-controls={panelId}
        title={`${user.full_name} (${status})`}
        onClick={() => setOpen((was) => !was)}
      >
        <span className={`avatar-ring ${online ? 'is-online' : 'is-offline'}`}>
          <Avatar name={user.full_name} src={user.profile_picture} size={30} />
        </span>
        <span className="profile-name">{user.full_name}</span>
        <span className="sr-only">, {status}</span>
        <svg
          className="chevron"
          viewBox="0 0 12 12"
          width="12"
          height="12"
          aria-hidden="true"
          focusable="false"
        >
          <path
            d="M2.5 4.5 6 8l3.5-3.5"
            stroke="currentColor"
            strokeWidth="1.5"
            fill="none"
            strokeLinecap="round"
          />
        </svg>
      </button>
      <div id={panelId} className="profile-panel" hidden={!open}>
        <div className="profile-head">
          <span className={`avatar-ring ${online ? 'is-online' : 'is-offline'}`}>
            <Avatar name={user.full_name} src={user.profile_picture} size={44} />
          </span>
          <div className="profile-details">
            <p className="profile-full-name">{user.full_name}</p>
            <p className="muted">{user.email}</p>
            {user.phone_number_formatted && <p className="muted">{user.phone_number_formatted}</p>}
          </div>
        </div>
        <p className="profile-status">
          <span
            className={`status-dot ${online ? 'is-online' : 'is-offline'}`}
            aria-hidden="true"
          />
          {status}
        </p>
        <button
          type="button"
          className="link-button"
          disabled={logout.isPending}
          onClick={() => logout.mutate(false)}
        >
          Log out
        </button>
        <button
          type="button"
          className="link-button"
          disabled={logout.isPending}
          onClick={() => logout.mutate(true)}
        >
          Log out everywhere
        </button>
      </div>
    </div>
  );
}
