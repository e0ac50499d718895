/**
 * The agent list the Transfer and Conference panels share (spec section 2): a status filter
 * (its choices per panel), a team filter (All Teams and the account's teams), a Search box
 * (debounced, searched on the server) and Previous/Next paging over
 * `GET /api/v1/users/paginated`; each row has a status icon and text, the full name, and the
 * panel's own actions. The list is read when shown, then kept fresh by the realtime feed's
 * `agent-status` events, or read again every few seconds while the feed is not connected.
 */
import type { AgentRow, AgentStatus, PresenceStatus } from '@leadline/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { agentsQuery, teamsQuery } from '../api/queries';
import { errorMessage } from '../errors';
import { useAgentListsPolling } from '../realtime/use-realtime';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';

export { AGENT_LISTS_REFRESH_MS } from '../constants';
/** How long the Search box waits after the last keystroke before it searches. */
export const SEARCH_DEBOUNCE_MS = 300;

/** A choice of the status filter. */
export interface StatusFilter {
  readonly value: AgentStatus;
  readonly label: string;
}

/** What each presence status is called next to its icon. */
export const STATUS_TEXT: Readonly<Record<PresenceStatus, string>> = {
  available: 'Available',
  away: 'Away',
  on_call: 'On call',
  wrap_up: 'Wrapping up',
  offline: 'Offline',
};

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

/**
 * Reads the agent and team lists again every few seconds while the caller is shown and the
 * realtime feed is not connected (`realtime/use-realtime.ts`).
 */
export const useListsRefresh = useAgentListsPolling;

/** A handset glyph for call buttons. */
export function CallIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M6.6 10.8a15.1 15.1 0 0 0 6.6 6.6l2.2-2.2a1 1 0 0 1 1-.25 11.4 11.4 0 0 0 3.6.57 1 1 0 0 1 1 1V20a1 1 0 0 1-1 1A17 17 0 0 1 3 4a1 1 0 0 1 1-1h3.5a1 1 0 0 1 1 1c0 1.25.2 2.45.57 3.6a1 1 0 0 1-.25 1z"
      />
    </svg>
  );
}

/** Props of {@link AgentPicker}. */
export interface AgentPickerProps {
  /** The status filter's choices, the first one chosen at start. */
  readonly statuses: readonly StatusFilter[];
  /** The actions of one row (buttons). */
  readonly actions: (agent: AgentRow) => ReactNode;
  /** An error to show above the list (the panel's own, e.g. a refused transfer). */
  readonly error?: unknown;
}

/** See the module comment. */
export function AgentPicker({ statuses, actions, error }: AgentPickerProps) {
  const { api } = useServices();
  const ids = useId();
  const [status, setStatus] = useState<AgentStatus>(statuses[0]!.value);
  const [teamId, setTeamId] = useState<number | null>(null);
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim(), SEARCH_DEBOUNCE_MS);
  // The page belongs to the filters it was chosen under: new filters start from the first.
  const filters = `${status}|${teamId ?? ''}|${search}`;
  const [paging, setPaging] = useState({ filters, page: 1 });
  const page = paging.filters === filters ? paging.page : 1;
  const setPage = (next: number) => setPaging({ filters, page: next });
  useListsRefresh();

  const agents = useQuery({
    ...agentsQuery(api, { page, status, search, teamId }),
    placeholderData: keepPreviousData,
  });
  const teams = useQuery(teamsQuery(api));
  const shown = error ?? agents.error ?? teams.error;

  return (
    <>
      <ErrorBanner message={shown ? errorMessage(shown) : null} />
      <div className="list-filters">
        <label className="field" htmlFor={`${ids}-status`}>
          <span className="field-label">Status</span>
          <select
            id={`${ids}-status`}
            className="input select"
            value={status}
            onChange={(e) => setStatus(e.target.value as AgentStatus)}
          >
            {statuses.map((f) => (
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
      <AgentRows rows={agents.data?.data} actions={actions} />
      <Pager
        page={agents.data?.meta.current_page ?? page}
        lastPage={agents.data?.meta.last_page ?? 1}
        onPage={setPage}
      />
    </>
  );
}

function AgentRows({
  rows,
  actions,
}: {
  readonly rows: readonly AgentRow[] | undefined;
  readonly actions: (agent: AgentRow) => ReactNode;
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
          <span className="target-actions">{actions(agent)}</span>
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
