/**
 * The Settings rows that reach an agent who is elsewhere: browser notifications for a lead that
 * rings while the tab is not in view (permission asked only from this button, never on load),
 * and opening `tel:` links on any page with Leadline (`registerProtocolHandler`).
 */
import { useReducer, useState, useSyncExternalStore } from 'react';
import type { NotificationPermissionState } from '../attention/attention-port';
import {
  NOTIFICATIONS_BLOCKED_TEXT,
  NOTIFICATIONS_OFF_TEXT,
  NOTIFICATIONS_ON_TEXT,
  NOTIFICATIONS_UNSUPPORTED_TEXT,
  TEL_HANDLER_ASKED_TEXT,
  TEL_HANDLER_TEXT,
  TEL_HANDLER_UNSUPPORTED_TEXT,
  TEL_HANDLER_URL_TEMPLATE,
} from '../constants';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';

const NOTIFICATION_TEXT: Readonly<Record<NotificationPermissionState, string>> = {
  default: NOTIFICATIONS_OFF_TEXT,
  granted: NOTIFICATIONS_ON_TEXT,
  denied: NOTIFICATIONS_BLOCKED_TEXT,
  unsupported: NOTIFICATIONS_UNSUPPORTED_TEXT,
};

/** See the module comment. */
export function AttentionSettings() {
  return (
    <>
      <NotificationsRow />
      <TelHandlerRow />
    </>
  );
}

function NotificationsRow() {
  const { notifications } = useServices().platform.attention;
  // The permission only changes through the prompt below (or the browser's site settings, which
  // a re-render picks up).
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const permission = useSyncExternalStore(noSubscription, () => notifications.permission());
  const [error, setError] = useState<string | null>(null);
  const ask = () => {
    setError(null);
    notifications.requestPermission().then(
      () => rerender(),
      (failure: unknown) => setError(`Asking for notifications failed: ${errorMessage(failure)}`),
    );
  };
  return (
    <div className="settings-row">
      <span className="field-label">Notifications</span>
      <p className="muted settings-hint">{NOTIFICATION_TEXT[permission]}</p>
      {permission === 'default' && (
        <button type="button" className="btn btn-secondary" onClick={ask}>
          Turn on notifications
        </button>
      )}
      <ErrorBanner message={error} />
    </div>
  );
}

function TelHandlerRow() {
  const { protocolHandlers } = useServices().platform.attention;
  const [state, setState] = useState<'idle' | 'asked' | { error: string }>('idle');
  const register = () => {
    try {
      protocolHandlers.registerTel(TEL_HANDLER_URL_TEMPLATE);
      setState('asked');
    } catch (failure) {
      setState({ error: `The browser refused: ${errorMessage(failure)}` });
    }
  };
  return (
    <div className="settings-row">
      <span className="field-label">Phone links</span>
      <p className="muted settings-hint">
        {!protocolHandlers.supported
          ? TEL_HANDLER_UNSUPPORTED_TEXT
          : state === 'asked'
            ? TEL_HANDLER_ASKED_TEXT
            : TEL_HANDLER_TEXT}
      </p>
      {protocolHandlers.supported && state !== 'asked' && (
        <button type="button" className="btn btn-secondary" onClick={register}>
          Open tel: links here
        </button>
      )}
      <ErrorBanner message={typeof state === 'object' ? state.error : null} />
    </div>
  );
}

const noSubscription = () => () => undefined;
