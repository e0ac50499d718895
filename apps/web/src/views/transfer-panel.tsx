/**
 * The Transfer panel (spec section 2): to a User or a Team. The user list comes from
 * `GET /api/v1/users/paginated` with a status filter (All Statuses, Available, On Call), a team
 * filter (All Teams and the account's teams), a Search box (debounced, searched on the server)
 * and Previous/Next paging; each row has a status icon, the full name and a call button, enabled
 * only for an agent who can take the call now. The team list shows each team and whether a
 * member can take it. Choosing a target posts the transfer and closes the panel; the server's
 * refusal shows in the panel. The lists are read when the panel opens and again every few
 * seconds while it is open.
 */
import type { AgentRow, AgentStatus, PresenceStatus, TeamRow } from '@leadline/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { agentsQuery, teamsQuery, QUERY_KEYS } from '../api/queries';
import type { ConsoleCall } from '../console/call-rules';
import { errorMessage } from '../errors';
import { useServices } from '../services';
import { ErrorBanner } from './action-button';

/** How often the open panel reads its lists again (until realtime pushes them). */
export const TRANSFER_LISTS_REFRESH_MS = 5_000;
/** How long the Search box waits after the last keystroke before it searches. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The status filter's choices (the spec's order). */
const STATUS_FILTERS: ReadonlyArray<{ value: AgentStatus; label: string }> = [
  { value: 'all', label: 'All Statuses' },
  { value: 'available', label: 'Available' },
  { value: 'on_call', label: 'On Call' },
];

/** What each presence status is called next to its icon. */
const STATUS_TEXT: Readonly<Record<PresenceStatus, string>> = {
  available: 'Available',
  away: 'Away',
  on_call: 'On call',
  wrap_up: 'Wrapping up',
  offline: 'Offline',
};

/**
 * Whether `agent` can be given the call now: not on a call, available, and online (in the app,
 * or on mobile unless the agent takes calls in the app only); never the agent transferring.
 */
export function canTakeTransfer(agent: AgentRow, selfId: number | null): boolean {
  if (agent.id === selfId || agent.on_call_id !== null || !agent.is_available) return false;
  return agent.is_app_only ? agent.is_online_app : agent.is_online_app || agent.is_mobile;
}

/** `value`, once it has stopped changing for `delayMs` (on the platform's timers). */
function useDebounced<T>(value: T, delayMs: number): T {
  const { timers } = useServices().platform;
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const handle = timers.setTimeout(() => setSettled(value), delayMs);
    return () => timers.clearTimeout(handle);
  }, [value, delayMs, timers]);
  return settled;
}

/** A handset glyph for the call buttons. */
function CallIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2a1 1 0 0 1 1-.25 11.4 11.4 0 0 0 3.6.57 1 1 0 0 1 1 1V20a1 1 0 0 1-1 1A17 17 0 0 1 3 4a1 1 0 0 1 1-1h3.5a1 1 0 0 1 1 1c0 1.25.2 2.45.57 3.6a1 1 0 0 1-.25 1z"
      />
    </svg>
  );
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
  const { api, platform } = useServices();
  const queryClient = useQueryClient();
  const ids = useId();
  const [target, setTarget] = useState<'user' | 'team'>('user');
  const [status, setStatus] = useState<AgentStatus>('all');
  const [teamId, setTeamId] = useState<number | null>(null);
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim(), SEARCH_DEBOUNCE_MS);
  // The page belongs to the filters it was chosen under: new filters start from the first.
  const filters = `${status}|${teamId ?? ''}|${search}`;
  const [paging, setPaging] = useState({ filters, page: 1 });
  const page = paging.filters === filters ? paging.page : 1;
  const setPage = (next: number) => setPaging({ filters, page: next });

  // Read again every few seconds while open.
  useEffect(() => {
    const handle = platform.timers.setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.agents });
      void queryClient.invalidateQueries({ queryKey: QUERY_KEYS.teams });
    }, TRANSFER_LISTS_REFRESH_MS);
    return () => platform.timers.clearInterval(handle);
  }, [platform, queryClient]);

  const agents = useQuery({
    ...agentsQuery(api, { page, status, search, teamId }),
    placeholderData: keepPreviousData,
    enabled: target === 'user',
  });
  const teams = useQuery(teamsQuery(api));

  const transfer = useMutation({
    mutationFn: (to: { user_id: number } | { team_id: number }) =>
      api.transferCall(call.call.id, { ...to, call_user_id: call.callUserId }),
    onSuccess: () => onDone(),
  });
  const error = transfer.error ?? agents.error ?? teams.error;

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
      <ErrorBanner message={error ? errorMessage(error) : null} />
      {target === 'user' ? (
        <>
          <div className="list-filters">
            <label className="field" htmlFor={`${ids}-status`}>
              <span className="field-label">Status</span>
              <select
                id={`${ids}-status`}
                className="input select"
                value={status}
                onChange={(e) => setStatus(e.target.value as AgentStatus)}
              >
                {STATUS_FILTERS.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="field" htmlFor={`${ids}-team`}>
              <span className="field-label">Team</span>
              <select
                id={`${ids}-team`}
                className="input select"
                value={teamId ?? ''}
                onChange={(e) => setTeamId(e.target.value === '' ? null : Number(e.target.value))}
              >
                <option value="">All Teams</option>
                {(teams.data ?? []).map((team) => (
                  <option key={team.id} value={team.id}>
                    {team.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="field field-wide" htmlFor={`${ids}-search`}>
              <span className="field-label">Search</span>
              <input
                id={`${ids}-search`}
                className="input"
                type="search"
                value={searchText}
                maxLength={100}
                autoComplete="off"
                onChange={(e) => setSearchText(e.target.value)}
              />
            </label>
          </div>
          <AgentList
            rows={agents.data?.data}
            selfId={selfId}
            busy={transfer.isPending}
            onChoose={(agent) => transfer.mutate({ user_id: agent.id })}
          />
          <Pager
            page={agents.data?.meta.current_page ?? page}
            lastPage={agents.data?.meta.last_page ?? 1}
            onPage={setPage}
          />
        </>
      ) : (
        <TeamList
          rows={teams.data}
          busy={transfer.isPending}
          onChoose={(team) => transfer.mutate({ team_id: team.id })}
        />
      )}
    </section>
  );
}

function AgentList({
  rows,
  selfId,
  busy,
  onChoose,
}: {
  readonly rows: readonly AgentRow[] | undefined;
  readonly selfId: number | null;
  readonly busy: boolean;
  readonly onChoose: (agent: AgentRow) => void;
}) {
  if (rows === undefined) return <p className="list-empty">Loading…</p>;
  if (rows.length === 0) return <p className="list-empty">No agents found!</p>;
  return (
    <ul className="target-list" aria-label="Agents">
      {rows.map((agent) => (
        <li key={agent.id} className="target-row">
          <span className={`status-dot status-${agent.status}`} aria-hidden="true" />
          <span className="target-name">
            {agent.full_name}
            <span className="sr-only">, {STATUS_TEXT[agent.status]}</span>
          </span>
          <span className="target-status" aria-hidden="true">
            {STATUS_TEXT[agent.status]}
          </span>
          <button
            type="button"
            className="btn btn-accept btn-icon"
            aria-label={`Transfer to ${agent.full_name}`}
            title={`Transfer to ${agent.full_name}`}
            disabled={busy || !canTakeTransfer(agent, selfId)}
            onClick={() => onChoose(agent)}
          >
            <CallIcon />
          </button>
        </li>
      ))}
    </ul>
  );
}

function TeamList({
  rows,
  busy,
  onChoose,
}: {
  readonly rows: readonly TeamRow[] | undefined;
  readonly busy: boolean;
  readonly onChoose: (team: TeamRow) => void;
}) {
  if (rows === undefined) return <p className="list-empty">Loading…</p>;
  if (rows.length === 0) return <p className="list-empty">No teams found!</p>;
  return (
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
        </li>
      ))}
    </ul>
  );
}

function Pager({
  page,
  lastPage,
  onPage,
}: {
  readonly page: number;
  readonly lastPage: number;
  readonly onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="btn btn-secondary"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        Previous
      </button>
      <span className="pager-position">
        Page {page} of {Math.max(1, lastPage)}
      </span>
      <button
        type="button"
        className="btn btn-secondary"
        disabled={page >= lastPage}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
