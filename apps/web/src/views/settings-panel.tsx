/**
 * The Settings panel (spec section 2): the Microphone, Speaker and Ringer selectors
 * (audio-device-settings.tsx; applied at once, also mid-call, remembered per browser), Auto Accept ON/OFF for users with app-autoaccept (stored
 * on the server: the next lead rings with it), the version label, Copy Error Logs (only when
 * there are logs; the timestamped log to the clipboard and the alert 'Copied error logs to
 * clipboard!'), and Update (reloads the console to pick up a new version). Notifications and
 * tel: links: attention-settings.tsx.
 */
import type { User } from '@leadline/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { QUERY_KEYS } from '../api/queries';
import { APP_VERSION, COPIED_LOGS_ALERT, PERMISSION_AUTOACCEPT } from '../constants';
import { errorMessage } from '../errors';
import { useErrorLog, useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { AttentionSettings } from './attention-settings';
import { AudioDeviceSettings } from './audio-device-settings';
import { NetworkTest } from './network-test';
import { PanelHead, closeOnEscape } from '../ui/panel-head';

/** Props of {@link SettingsPanel}. */
export interface SettingsPanelProps {
  readonly user: User;
  /** The panel element's id (the Settings button controls it). */
  readonly id: string;
  readonly onClose: () => void;
}

/** See the module comment. */
export function SettingsPanel({ user, id, onClose }: SettingsPanelProps) {
  const { controller, platform } = useServices();
  const titleId = useId();
  const errorLog = useErrorLog();
  const copy = useMutation({
    mutationFn: () => platform.copyText(errorLog.join('\n')),
    onSuccess: () => platform.alert(COPIED_LOGS_ALERT),
  });
  return (
    <section
      id={id}
      className="panel settings"
      aria-labelledby={titleId}
      onKeyDown={closeOnEscape(onClose)}
    >
      <PanelHead titleId={titleId} title="Settings" onClose={onClose} />
      <AudioDeviceSettings audio={controller.audio} storage={platform.storage} />
      {user.permissions.includes(PERMISSION_AUTOACCEPT) && <AutoAcceptSwitch user={user} />}
      <AttentionSettings />
      <NetworkTest />
      <ErrorBanner message={copy.error ? `Copying failed: ${errorMessage(copy.error)}` : null} />
      <div className="settings-actions">
        {errorLog.length > 0 && (
          <button
            type="button"
            className="btn btn-secondary"
            disabled={copy.isPending}
            onClick={() => copy.mutate()}
          >
            Copy Error Logs
          </button>
        )}
        <button type="button" className="btn btn-secondary" onClick={() => platform.reload()}>
          Update
        </button>
      </div>
      <p className="muted settings-version">Version {APP_VERSION}</p>
    </section>
  );
}

/** Auto Accept ON/OFF: a switch saved on the server, shown as it is stored. */
function AutoAcceptSwitch({ user }: { readonly user: User }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const labelId = useId();
  const save = useMutation({
    mutationFn: (on: boolean) => api.setAutoaccept(on),
    onSuccess: (on) =>
      queryClient.setQueryData<User | null>(QUERY_KEYS.user, (current) =>
        current ? { ...current, autoaccept: on } : current,
      ),
  });
  const on = save.isPending ? save.variables : user.autoaccept;
  return (
    <div className="settings-row">
      <span id={labelId} className="field-label">
        Auto Accept
      </span>
      <button
        type="button"
        role="switch"
        className={`switch${on ? ' is-on' : ''}`}
        aria-checked={on}
        aria-labelledby={labelId}
        aria-busy={save.isPending || undefined}
        disabled={save.isPending}
        onClick={() => save.mutate(!on)}
      >
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        <span className="switch-text">{on ? 'ON' : 'OFF'}</span>
      </button>
      <ErrorBanner message={save.error ? errorMessage(save.error) : null} />
    </div>
  );
}
