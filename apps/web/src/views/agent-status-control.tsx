/**
 * The agent's Available / Away choice in the navigation bar (issue 18): one button showing where
 * the agent is now (Available, Away, On call, Wrapping up, Offline) that sets the other choice
 * with `PUT /api/v1/user/status`. The answer (where the agent is now, and the choice) goes into
 * the cached user; a refusal shows under the bar until dismissed or the next try.
 */
import type { User, UserStatusBody } from '@leadline/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { errorMessage } from '../errors';
import { setUserStatus } from '../realtime/agent-status-cache';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { STATUS_TEXT } from './agent-picker';

/** What the button sets next: the other choice. */
function nextChoice(user: User): UserStatusBody['status'] {
  return user.is_available ? 'away' : 'available';
}

/** See the module comment. */
export function AgentStatusControl({ user }: { readonly user: User }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const hintId = useId();
  const save = useMutation({
    mutationFn: (status: UserStatusBody['status']) => api.setStatus(status),
    onSuccess: (answer) => setUserStatus(queryClient, answer),
  });
  const text = STATUS_TEXT[user.status];
  const next = nextChoice(user);
  const hint = `Set ${STATUS_TEXT[next]}`;
  return (
    <div className="agent-status">
      <button
        type="button"
        className="agent-status-button"
        aria-label={`Status: ${text}`}
        aria-describedby={hintId}
        aria-busy={save.isPending || undefined}
        title={hint}
        disabled={save.isPending}
        onClick={() => save.mutate(next)}
      >
        <span className={`status-dot status-${user.status}`} aria-hidden="true" />
        <span className="agent-status-text">{text}</span>
      </button>
      <span id={hintId} hidden>
        {hint}
      </span>
      {save.error && (
        <div className="agent-status-error">
          <ErrorBanner message={`Changing your status failed: ${errorMessage(save.error)}`} />
          <button
            type="button"
            className="agent-status-dismiss"
            aria-label="Dismiss"
            title="Dismiss"
            onClick={() => save.reset()}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      )}
    </div>
  );
}
