/**
 * The Transfer panel (spec section 2): to a User or a Team. Users come from the shared agent
 * list (agent-picker.tsx) with the status filter All Statuses, Available, On Call; each row's
 * call button is enabled only for an agent who can take the call now. The team list shows each
 * team and whether a member can take it. Choosing a target posts the transfer and closes the
 * panel; the server's refusal shows in the panel.
 */
import type { AgentRow, TeamRow } from '@leadline/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { teamsQuery } from '../api/queries';
import type { ConsoleCall } from '../console/call-rules';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { AgentPicker, CallIcon, useListsRefresh, type StatusFilter } from './agent-picker';

export { AGENT_LISTS_REFRESH_MS, SEARCH_DEBOUNCE_MS } from './agent-picker';

/** The status filter's choices (the spec's order). */
const STATUS_FILTERS: readonly StatusFilter[] = [
  { value: 'all', label: 'All Statuses' },
  { value: 'available', label: 'Available' },
  { value: 'on_call', label: 'On Call' },
];

/**
 * Whether `agent` can be given the call now: not on a call, available, and online (in the app,
 * or on mobile unless the agent takes calls in the app only); never the agent transferring.
 */
export function canTakeTransfer(agent: AgentRow, selfId: number | null): boolean {
  if (agent.id === selfId || agent.on_call_id !== null || !agent.is_available) return false;
  return agent.is_app_only ? agent.is_online_app : agent.is_online_app || agent.is_mobile;
}

/** Props of {@link TransferPanel}. */
export interface TransferPanelProps {
  /** The call being transferred (its id and this agent's call user). */
  readonly call: ConsoleCall;
  /** The agent transferring (left out of the choices). */
  readonly selfId: number | null;
  /** Closes the panel (after a transfer was asked for). */
  readonly onDone: () => void;
}

/** See the module comment. */
export function TransferPanel({ call, selfId, onDone }: TransferPanelProps) {
  const { api } = useServices();
  const [target, setTarget] = useState<'user' | 'team'>('user');
  const transfer = useMutation({
    mutationFn: (to: { user_id: number } | { team_id: number }) =>
      api.transferCall(call.call.id, { ...to, call_user_id: call.callUserId }),
    onSuccess: () => onDone(),
  });

  return (
    <section className="transfer" aria-label="Transfer">
      <div className="segmented" role="group" aria-label="Transfer to">
        {(['user', 'team'] as const).map((choice) => (
          <button
            key={choice}
            type="button"
            className="btn btn-secondary"
            aria-pressed={target === choice}
            onClick={() => setTarget(choice)}
          >
            {choice === 'user' ? 'User' : 'Team'}
          </button>
        ))}
      </div>
      {target === 'user' ? (
        <AgentPicker
          statuses={STATUS_FILTERS}
          error={transfer.error}
          actions={(agent) => (
            <button
              type="button"
              className="btn btn-accept btn-icon"
              aria-label={`Transfer to ${agent.full_name}`}
              title={`Transfer to ${agent.full_name}`}
              disabled={transfer.isPending || !canTakeTransfer(agent, selfId)}
              onClick={() => transfer.mutate({ user_id: agent.id })}
            >
              <CallIcon />
            </button>
          )}
        />
      ) : (
        <TeamList
          busy={transfer.isPending}
          error={transfer.error}
          onChoose={(team) => transfer.mutate({ team_id: team.id })}
        />
      )}
    </section>
  );
}

function TeamList({
  busy,
  error,
  onChoose,
}: {
  readonly busy: boolean;
  readonly error: unknown;
  readonly onChoose: (team: TeamRow) => void;
}) {
  const { api } = useServices();
  const teams = useQuery(teamsQuery(api));
  useListsRefresh();
  const shown = error ?? teams.error;
  const rows = teams.data;
  return (
    <>
      <ErrorBanner message={shown ? errorMessage(shown) : null} />
      {rows === undefined ? (
        <p className="list-empty">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="list-empty">No teams found!</p>
      ) : (
        <ul className="target-list" aria-label="Teams">
          {rows.map((team) => (
            <li key={team.id} className="target-row">
              <span
                className={`status-dot status-${team.is_available ? 'available' : 'offline'}`}
                aria-hidden="true"
              />
              <span className="target-name">
                {team.name}
                <span className="sr-only">, {team.is_available ? 'Available' : 'Unavailable'}</span>
              </span>
              <span className="target-status" aria-hidden="true">
                {team.is_available ? 'Available' : 'Unavailable'}
              </span>
              <span className="target-actions">
                <button
                  type="button"
                  className="btn btn-accept btn-icon"
                  aria-label={`Transfer to team ${team.name}`}
                  title={`Transfer to team ${team.name}`}
                  disabled={busy || !team.is_available}
                  onClick={() => onChoose(team)}
                >
                  <CallIcon />
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
