/**
 * The History panel (spec section 2): 'Call History' with a close icon, the user's calls from
 * `GET /api/v1/mycalls` (5 a page) with Previous/Next and a way to start a new call. Each row
 * shows the direction, the time, the status as the server words it (missed, busy, offline, the
 * duration, 'No Answer'…) with its reason, the duration, the agent and the lead (its label and
 * formatted number, or first and last name where the account asks for it), and the supervisors
 * who joined the call for users who may supervise. A recording plays in the page, with a seek
 * bar, and can be downloaded. Read again each time the panel opens (so after every call).
 *
 * Times are the agent's own: each row's `created_at` in the browser's zone, a call of today as
 * its time, older ones with the date (the server's `time_formatted` is UTC, for API clients).
 *
 * Retry (app-retry, on a row the server offers it for: `retry` with its `lead_retry`) calls that
 * lead again as the Call Result's Retry does (`POST /api/v1/calls/twilio`): the server rings this
 * agent first, so the ringing view soon takes the panel's place; until then the panel says the
 * lead is being called (and who is rung, if another agent is). The server's refusal shows under
 * the row. One Retry at a time: every Retry is disabled while a request runs.
 */
import type { HistoryRow, RetryCallBody, User } from '@leadline/contracts';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { historyQuery } from '../api/queries';
import { PERMISSION_RETRY } from '../constants';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';
import { formatCallTime } from '../ui/format';
import { PanelHead, closeOnEscape } from '../ui/panel-head';
import { readableTextOn, tagBackground } from '../ui/colour-contrast';

/** The text of the empty history. */
export const NO_CALLS_TEXT = "You don't have any calls!";

/** What a supervisor's role is called in a history row. */
const ROLE_TEXT = { listen: 'listened', whisper: 'whispered', barge: 'barged in' } as const;

/** Props of {@link HistoryPanel}. */
export interface HistoryPanelProps {
  readonly user: User;
  /** The panel element's id (the History button controls it). */
  readonly id: string;
  readonly onClose: () => void;
  /** Opens the New Call panel instead. */
  readonly onNewCall: () => void;
}

/** A Retry asked for from a row: which row, whom it calls, with what. */
interface RetryRequest {
  readonly rowId: number;
  /** The lead as the row names it. */
  readonly who: string;
  readonly body: RetryCallBody;
}

/** What the panel says once the server is calling `who` again and ringing `agentId`. */
export function retryStartedText(who: string, agentId: number | null, userId: number): string {
  return agentId === null || agentId === userId
    ? `Calling ${who} again…`
    : `Calling ${who} again: another agent is being rung for the call.`;
}

/** See the module comment. */
export function HistoryPanel({ user, id, onClose, onNewCall }: HistoryPanelProps) {
  const { api, platform } = useServices();
  const titleId = useId();
  const [page, setPage] = useState(1);
  const history = useQuery({ ...historyQuery(api, page), placeholderData: keepPreviousData });
  const retry = useMutation({
    mutationFn: (request: RetryRequest) => api.retryLead(request.body),
  });
  const rows = history.data?.data;
  const lastPage = history.data?.meta.last_page ?? 1;
  const showsNames = user.settings.history_shows_lead_name === true;
  const mayRetry = user.permissions.includes(PERMISSION_RETRY);
  // Which day is today, for the rows' times (read each render: the panel is read anew each time).
  const nowMs = platform.clock.now();
  const retryNotice =
    retry.isSuccess && retry.variables
      ? retryStartedText(retry.variables.who, retry.data.agentId, user.id)
      : '';

  return (
    <section
      id={id}
      className="panel history"
      aria-labelledby={titleId}
      onKeyDown={closeOnEscape(onClose)}
    >
      <PanelHead titleId={titleId} title="Call History" onClose={onClose} />
      <ErrorBanner message={history.error ? errorMessage(history.error) : null} />
      {/* Kept in the page (a live region must exist before it speaks); no space while empty. */}
      <p className={`history-notice${retryNotice ? '' : ' sr-only'}`} role="status">
        {retryNotice}
      </p>
      {rows === undefined ? (
        <p className="list-empty">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="list-empty">{NO_CALLS_TEXT}</p>
      ) : (
        <ul className="history-list" aria-label="Calls">
          {rows.map((row) => (
            <HistoryItem
              key={row.id}
              row={row}
              showsNames={showsNames}
              nowMs={nowMs}
              retry={
                mayRetry && row.retry && row.lead_retry
                  ? {
                      body: row.lead_retry,
                      pending: retry.isPending,
                      error:
                        retry.isError && retry.variables?.rowId === row.id
                          ? errorMessage(retry.error)
                          : null,
                      start: (request) => retry.mutate(request),
                    }
                  : null
              }
            />
          ))}
        </ul>
      )}
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          className="btn btn-secondary"
          disabled={page <= 1}
          onClick={() => setPage(page - 1)}
        >
          Previous
        </button>
        <span className="pager-position">
          Page {history.data?.meta.current_page ?? page} of {Math.max(1, lastPage)}
        </span>
        <button
          type="button"
          className="btn btn-secondary"
          disabled={page >= lastPage}
          onClick={() => setPage(page + 1)}
        >
          Next
        </button>
      </nav>
      <button type="button" className="btn btn-accept btn-block" onClick={onNewCall}>
        New Call
      </button>
    </section>
  );
}

/** The Call Result as the agent chose it (the button's words). */
const DISPOSITION_TEXT: Readonly<Record<string, string>> = {
  contacted: 'Contacted',
  voicemail: 'Voicemail',
  missed: 'Missed',
  removed: 'Removed',
};

/** Who the call was with, as the row names them. */
function leadText(row: HistoryRow, showsNames: boolean): string {
  const lead = row.lead;
  if (!lead) return row.phone_number_formatted ?? 'Unknown caller';
  const name = showsNames ? [lead.fname, lead.lname].filter(Boolean).join(' ') : lead.label;
  return name || lead.phone_number_formatted;
}

/** A row's Retry: what it posts, whether a Retry runs, its refusal, and how to start it. */
interface RowRetry {
  readonly body: RetryCallBody;
  /** A Retry (of any row) is running: every Retry waits for it. */
  readonly pending: boolean;
  /** The server's refusal of this row's Retry, or null. */
  readonly error: string | null;
  readonly start: (request: RetryRequest) => void;
}

function HistoryItem({
  row,
  showsNames,
  nowMs,
  retry,
}: {
  readonly row: HistoryRow;
  readonly showsNames: boolean;
  readonly nowMs: number;
  /** Null when the row offers no Retry (no app-retry, or not a lead that can be called). */
  readonly retry: RowRetry | null;
}) {
  const [playing, setPlaying] = useState(false);
  const who = leadText(row, showsNames);
  const number = row.lead?.phone_number_formatted ?? row.phone_number_formatted;
  const inbound = row.direction === 'inbound';
  return (
    <li className="history-row">
      <div className="history-main">
        <span className={`history-direction is-${row.direction}`} aria-hidden="true">
          {inbound ? '↙' : '↗'}
        </span>
        <span className="history-who">
          <span className="sr-only">{inbound ? 'Inbound call from ' : 'Outbound call to '}</span>
          <span className="history-name">{who}</span>
          {number && number !== who ? <span className="history-number">{number}</span> : null}
        </span>
        <span className="history-status">
          {row.status_display}
          {row.reason ? <span className="history-reason">{row.reason}</span> : null}
        </span>
      </div>
      <div className="history-meta">
        <time dateTime={row.created_at}>{formatCallTime(row.created_at, { nowMs })}</time>
        <span>
          <span className="sr-only">Duration </span>
          {row.duration}
        </span>
        {row.user ? <span>{row.user.name}</span> : null}
        {row.type === 'conference' ? <span>Conference</span> : null}
      </div>
      {row.disposition || row.stage ? (
        <p className="history-outcome">
          {row.disposition ? (
            <span>{DISPOSITION_TEXT[row.disposition] ?? row.disposition}</span>
          ) : null}
          {row.stage ? (
            <span
              className="history-tag"
              style={
                tagBackground(row.stage.color)
                  ? { backgroundColor: row.stage.color, color: readableTextOn(row.stage.color) }
                  : undefined
              }
            >
              {row.stage.name}
            </span>
          ) : null}
        </p>
      ) : null}
      {row.notes.map((note) => (
        <p key={note.id} className="history-note">
          <span className="sr-only">Note: </span>
          {note.content}
        </p>
      ))}
      {row.supervision && row.supervision.length > 0 ? (
        <p className="history-supervision">
          {row.supervision.map((s) => `${s.name} ${ROLE_TEXT[s.role]}`).join(', ')}
        </p>
      ) : null}
      {retry || row.recording_url ? (
        <div className="history-actions">
          {retry ? (
            <button
              type="button"
              className="btn btn-secondary btn-compact"
              aria-label={`Retry ${who}`}
              disabled={retry.pending}
              aria-busy={retry.pending || undefined}
              onClick={() => retry.start({ rowId: row.id, who, body: retry.body })}
            >
              Retry
            </button>
          ) : null}
          {row.recording_url ? (
            <>
              {playing ? (
                // The browser's own controls: play, pause and a seek bar.
                <audio
                  controls
                  autoPlay
                  preload="metadata"
                  src={row.recording_url}
                  aria-label={`Recording of the call with ${who}`}
                />
              ) : (
                <button
                  type="button"
                  className="btn btn-secondary btn-compact"
                  aria-label={`Play recording of the call with ${who}`}
                  onClick={() => setPlaying(true)}
                >
                  Play recording
                </button>
              )}
              <a
                className="btn btn-secondary btn-compact"
                href={row.recording_url}
                download
                aria-label={`Download the recording of the call with ${who}`}
              >
                Download
              </a>
            </>
          ) : null}
        </div>
      ) : null}
      <ErrorBanner message={retry?.error ?? null} />
    </li>
  );
}
