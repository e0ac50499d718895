/**
 * On a supervisor's call (listen, whisper or barge): the roles they may take, the current one
 * pressed; choosing another moves them to it on the same call, without hanging up (the engine
 * changes their role in the room). Nothing for agents' own calls.
 */
import type { User } from '@leadline/contracts';
import { useMutation } from '@tanstack/react-query';
import type { SuperviseMode } from '../api/api-client';
import type { ConsoleCall } from '../console/call-rules';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { SUPERVISE_MODES, superviseModes } from './conference-panel';

const SUPERVISING: ReadonlySet<string> = new Set(['listen', 'whisper', 'barge']);

/** See the module comment. */
export function SuperviseSwitch({
  call,
  user,
}: {
  readonly call: ConsoleCall;
  readonly user: User;
}) {
  const { api, controller } = useServices();
  const change = useMutation({
    mutationFn: async (mode: SuperviseMode) => {
      await api.supervise(call.call.id, mode);
      return mode;
    },
    onSuccess: (mode) => controller.roleChanged(mode),
  });
  if (!SUPERVISING.has(call.type)) return null;
  const allowed = new Set(superviseModes(user));
  return (
    <div className="supervise-switch">
      <ErrorBanner message={change.error ? errorMessage(change.error) : null} />
      <div className="segmented segmented-3" role="group" aria-label="Your role on this call">
        {SUPERVISE_MODES.filter((m) => allowed.has(m.mode) || m.mode === call.type).map((m) => (
          <button
            key={m.mode}
            type="button"
            className="btn btn-secondary"
            aria-pressed={call.type === m.mode}
            disabled={change.isPending || call.type === m.mode}
            onClick={() => change.mutate(m.mode)}
          >
            {m.label}
          </button>
        ))}
      </div>
    </div>
  );
}
