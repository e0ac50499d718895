/**
 * The floor (issue 39), for supervisors and admins: today's figures, the leads waiting (each
 * wait counting up every second, longest first) and every agent with their status and how long
 * they have been in it, the call they are on and, for an agent on a call, Listen, Whisper and
 * Barge by the supervisor's permissions; then today by 15 minutes.
 *
 * Live without a reload: read again on `floor-changed` and `agent-status` events (a burst in one
 * read) and after the realtime connection (re)subscribed (`realtime/realtime-feed.ts`); polled
 * every few seconds while it is not connected, and now and then while it is (`floorQuery`).
 * Times count up in the page between reads. It takes the waiting view's place like the admin
 * area.
 */
import type {
  Floor,
  FloorAgent,
  FloorInterval,
  FloorKpis,
  FloorStatus,
  User,
} from '@leadline/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { SuperviseMode } from '../api/api-client';
import { floorQuery } from '../api/queries';
import { errorMessage } from '../errors';
import { useRealtimeState } from '../realtime/use-realtime';
import { useNow, useServices } from '../use-services';
import { SuperviseButtons, superviseModes } from '../views/conference-panel';
import { elapsedSeconds, formatDuration } from '../ui/format';
import { PanelHead } from '../ui/panel-head';
import { percent, seconds } from './floor-format';
import { FloorTable } from './floor-table';
import { Drawable, IntervalCharts } from './lazy-charts';
import { ReportsView } from './reports-view';

/**
 * How the floor names each status. (Written here, not imported from the contracts' values:
 * those bring zod, whose start-up probe for `Function` the console's CSP refuses.)
 */
const FLOOR_STATUS_TEXT: Record<FloorStatus, string> = {
  available: 'Available',
  away: 'Away',
  ringing: 'Ringing',
  on_call: 'On call',
  wrap_up: 'Wrapping up',
  offline: 'Offline',
};

/** Props of {@link FloorArea}. */
export interface FloorAreaProps {
  /** The area's element id (the Floor entry controls it). */
  readonly id: string;
  readonly user: User;
  readonly onClose: () => void;
  /** Hidden (kept, not shown) while the console shows a call. */
  readonly hidden?: boolean;
}

/** See the module comment. */
export function FloorArea({ id, user, onClose, hidden = false }: FloorAreaProps) {
  const [tab, setTab] = useState<'floor' | 'reports'>('floor');
  return (
    <section id={id} className="panel floor-area" aria-labelledby={`${id}-title`} hidden={hidden}>
      <PanelHead titleId={`${id}-title`} title="Floor" onClose={onClose} />
      <nav className="floor-tabs" aria-label="Floor sections">
        {(
          [
            ['floor', 'Live'],
            ['reports', 'Reports'],
          ] as const
        ).map(([name, label]) => (
          <button
            key={name}
            type="button"
            className={`admin-section${tab === name ? ' is-active' : ''}`}
            aria-current={tab === name ? 'page' : undefined}
            onClick={() => setTab(name)}
          >
            {label}
          </button>
        ))}
      </nav>
      {tab === 'floor' ? <LiveFloor user={user} /> : <ReportsView />}
    </section>
  );
}

/** The live floor: read again by itself (see the module comment). */
function LiveFloor({ user }: { user: User }) {
  const { api } = useServices();
  const floor = useQuery(floorQuery(api, useRealtimeState() === 'connected'));
  const now = useNow(1000);
  return (
    <>
      {floor.isError && (
        <p className="form-error" role="alert">
          {errorMessage(floor.error)}
        </p>
      )}
      {floor.data ? (
        <FloorBody floor={floor.data} user={user} nowMs={now} />
      ) : (
        !floor.isError && (
          <p className="muted" role="status">
            Loading…
          </p>
        )
      )}
    </>
  );
}

function FloorBody({ floor, user, nowMs }: { floor: Floor; user: User; nowMs: number }) {
  return (
    <div className="floor-body">
      <Kpis kpis={floor.kpis} date={floor.date} timeZone={floor.time_zone} />
      <Queue floor={floor} nowMs={nowMs} />
      <Agents agents={floor.agents} user={user} nowMs={nowMs} />
      <Intervals intervals={floor.intervals} timeZone={floor.time_zone} />
    </div>
  );
}

function Kpis({ kpis, date, timeZone }: { kpis: FloorKpis; date: string; timeZone: string }) {
  const items: Array<[string, string]> = [
    ['Offered', String(kpis.offered)],
    ['Answered', String(kpis.answered)],
    ['Missed', String(kpis.missed)],
    ['Abandoned', String(kpis.abandoned)],
    ['Answer rate', percent(kpis.answer_rate)],
    ['Avg. speed of answer', seconds(kpis.average_speed_of_answer_seconds)],
    ['Avg. handle time', seconds(kpis.average_handle_seconds)],
    [`Service level (${kpis.service_level_seconds} s)`, percent(kpis.service_level)],
  ];
  return (
    <section className="floor-section" aria-labelledby="floor-today">
      <h2 id="floor-today" className="floor-heading">
        Today <span className="muted">{`${date}, ${timeZone}`}</span>
      </h2>
      <dl className="floor-kpis">
        {items.map(([label, value]) => (
          <div key={label} className="floor-kpi">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Queue({ floor, nowMs }: { floor: Floor; nowMs: number }) {
  const { queue } = floor;
  return (
    <section className="floor-section" aria-labelledby="floor-queue">
      <h2 id="floor-queue" className="floor-heading">
        Queue <span className="muted">{`${queue.length} waiting`}</span>
      </h2>
      {queue.length === 0 ? (
        <p className="muted">Nobody is waiting.</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table">
            <thead>
              <tr>
                <th scope="col">Lead</th>
                <th scope="col">Profile / team</th>
                <th scope="col">Waiting</th>
              </tr>
            </thead>
            <tbody>
              {queue.map((entry) => (
                <tr key={entry.call_id}>
                  <th scope="row">{entry.label}</th>
                  <td data-label="Profile">
                    {[entry.profile?.name, entry.team?.name].filter(Boolean).join(' / ') || '–'}
                  </td>
                  <td data-label="Waiting" className="floor-time">
                    {formatDuration(elapsedSeconds(Date.parse(entry.waiting_since), nowMs))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Agents({ agents, user, nowMs }: { agents: FloorAgent[]; user: User; nowMs: number }) {
  const { api } = useServices();
  const modes = new Set(superviseModes(user));
  const act = useMutation({
    mutationFn: (choice: { callId: number; mode: SuperviseMode }) =>
      api.supervise(choice.callId, choice.mode),
  });
  return (
    <section className="floor-section" aria-labelledby="floor-agents">
      <h2 id="floor-agents" className="floor-heading">
        Agents
      </h2>
      {act.isError && (
        <p className="form-error" role="alert">
          {errorMessage(act.error)}
        </p>
      )}
      <div className="admin-table-wrap">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">For</th>
              <th scope="col">Call</th>
              {modes.size > 0 && <th scope="col">Supervise</th>}
            </tr>
          </thead>
          <tbody>
            {agents.map((agent) => {
              const callId = agent.status === 'on_call' ? (agent.call?.id ?? null) : null;
              return (
                <tr key={agent.id}>
                  <th scope="row">{agent.full_name}</th>
                  <td data-label="Status">
                    <span className={`floor-status is-${agent.status}`}>
                      {FLOOR_STATUS_TEXT[agent.status]}
                    </span>
                  </td>
                  <td data-label="For" className="floor-time">
                    {agent.since
                      ? formatDuration(elapsedSeconds(Date.parse(agent.since), nowMs))
                      : '–'}
                  </td>
                  <td data-label="Call">
                    {agent.call ? (
                      // One element: the narrow screens' card puts each child in a grid cell.
                      <span>
                        {agent.call.lead_label ?? 'Call'}
                        {agent.call.answered_at && (
                          <span className="muted floor-time">
                            {' '}
                            {formatDuration(
                              elapsedSeconds(Date.parse(agent.call.answered_at), nowMs),
                            )}
                          </span>
                        )}
                      </span>
                    ) : (
                      '–'
                    )}
                  </td>
                  {modes.size > 0 && (
                    <td className="floor-actions admin-row-actions">
                      {callId !== null && agent.id !== user.id && (
                        <SuperviseButtons
                          agentName={agent.full_name}
                          modes={modes}
                          disabled={act.isPending}
                          onChoose={(mode) => act.mutate({ callId, mode })}
                        />
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** An interval's start as the account's local time (`09:15`). */
function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
  }).format(new Date(iso));
}

function Intervals({ intervals, timeZone }: { intervals: FloorInterval[]; timeZone: string }) {
  // The intervals with calls, newest first (a day has 96).
  const shown = intervals.filter((interval) => interval.offered > 0).reverse();
  return (
    <FloorTable
      title="By 15 minutes"
      headers={['From', 'Offered', 'Answered', 'Missed', 'Abandoned', 'Service level']}
      empty="No calls offered yet today."
      rows={shown.map((interval) => ({
        key: interval.start,
        cells: [
          localTime(interval.start, timeZone),
          String(interval.offered),
          String(interval.answered),
          String(interval.missed),
          String(interval.abandoned),
          percent(interval.service_level),
        ],
      }))}
    >
      <Drawable>
        <IntervalCharts intervals={intervals} timeZone={timeZone} />
      </Drawable>
    </FloorTable>
  );
}
