/**
 * Reports (issue 39), beside the floor for supervisors and admins: a range of days (the
 * account's), the summaries of `GET /api/v1/reports/summary` as tables (by day, agent, team,
 * profile, disposition and tag), the range by day as charts (above the By day table, which has
 * their figures) and the calls of the range as CSV
 * (`GET /api/v1/reports/calls.csv`, a plain link: the browser downloads it with the session).
 */
import type { ReportFigures, ReportSummary } from '@leadline/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { reportSummaryQuery } from '../api/queries';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { formatDuration } from '../ui/format';
import { percent, seconds } from './floor-format';
import { FloorTable } from './floor-table';
import { DayCharts, Drawable } from './lazy-charts';

/** A date `YYYY-MM-DD` of the local calendar, `days` before the day of `nowMs`. */
export function localDate(nowMs: number, days = 0): string {
  const date = new Date(nowMs);
  date.setDate(date.getDate() - days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The days a report opens with: the last seven, today included. */
const DEFAULT_DAYS = 7;

/** See the module comment. */
export function ReportsView() {
  const { api, platform } = useServices();
  const fromId = useId();
  const toId = useId();
  const today = localDate(platform.clock.now());
  const [range, setRange] = useState(() => ({
    from: localDate(platform.clock.now(), DEFAULT_DAYS - 1),
    to: today,
  }));
  const [draft, setDraft] = useState(range);
  const summary = useQuery(reportSummaryQuery(api, range.from, range.to));
  const csv = `/api/v1/reports/calls.csv?${new URLSearchParams(range).toString()}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setRange(draft);
  };
  return (
    <div className="floor-body">
      <form className="reports-range" onSubmit={submit} aria-label="Report range">
        <div className="field">
          <label className="field-label" htmlFor={fromId}>
            From
          </label>
          <input
            id={fromId}
            className="input"
            type="date"
            required
            value={draft.from}
            max={draft.to}
            onChange={(event) => setDraft({ ...draft, from: event.target.value })}
          />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={toId}>
            To
          </label>
          <input
            id={toId}
            className="input"
            type="date"
            required
            value={draft.to}
            min={draft.from}
            onChange={(event) => setDraft({ ...draft, to: event.target.value })}
          />
        </div>
        <button type="submit" className="btn btn-primary">
          Show
        </button>
        <a className="btn btn-secondary" href={csv} download>
          Download calls (CSV)
        </a>
      </form>
      {summary.isError && (
        <p className="form-error" role="alert">
          {errorMessage(summary.error)}
        </p>
      )}
      {summary.data ? (
        <Summaries summary={summary.data} />
      ) : (
        !summary.isError && (
          <p className="muted" role="status">
            Loading…
          </p>
        )
      )}
    </div>
  );
}

/** The figures' columns, as headers and cells. */
const FIGURE_COLUMNS: ReadonlyArray<[string, (f: ReportFigures) => string]> = [
  ['Offered', (f) => String(f.offered)],
  ['Answered', (f) => String(f.answered)],
  ['Missed', (f) => String(f.missed)],
  ['Abandoned', (f) => String(f.abandoned)],
  ['Answer rate', (f) => percent(f.answer_rate)],
  ['Avg. answer', (f) => seconds(f.average_speed_of_answer_seconds)],
  ['Avg. handle', (f) => seconds(f.average_handle_seconds)],
  ['Service level', (f) => percent(f.service_level)],
];

function Summaries({ summary }: { summary: ReportSummary }) {
  return (
    <>
      <p className="muted">
        {`${summary.from} to ${summary.to}, ${summary.time_zone}; service level: answered within ${summary.service_level_seconds} s.`}
      </p>
      <FiguresTable
        title="By day"
        first="Day"
        rows={summary.by_day.map((row) => ({ key: row.day, name: row.day, figures: row }))}
      >
        {summary.by_day.length > 0 && (
          <Drawable>
            <DayCharts summary={summary} />
          </Drawable>
        )}
      </FiguresTable>
      <FiguresTable
        title="By team"
        first="Team"
        rows={summary.by_team.map((row) => ({ key: String(row.id), name: row.name, figures: row }))}
      />
      <FiguresTable
        title="By profile"
        first="Profile"
        rows={summary.by_profile.map((row) => ({
          key: String(row.id),
          name: row.name,
          figures: row,
        }))}
      />
      <FloorTable
        title="By agent"
        headers={['Agent', 'Calls', 'Answered', 'Talk', 'Avg. handle']}
        rows={summary.by_agent.map((row) => ({
          key: String(row.id),
          cells: [
            row.name,
            String(row.calls),
            String(row.answered),
            formatDuration(row.talk_seconds),
            seconds(row.average_handle_seconds),
          ],
        }))}
      />
      <FloorTable
        title="By disposition"
        headers={['Disposition', 'Calls']}
        rows={summary.by_disposition.map((row) => ({
          key: row.disposition,
          cells: [row.disposition, String(row.calls)],
        }))}
      />
      <FloorTable
        title="By tag"
        headers={['Tag', 'Calls']}
        rows={summary.by_tag.map((row) => ({ key: row.tag, cells: [row.tag, String(row.calls)] }))}
      />
    </>
  );
}

function FiguresTable({
  title,
  first,
  rows,
  children,
}: {
  title: string;
  first: string;
  rows: Array<{ key: string; name: string; figures: ReportFigures }>;
  /** Between the title and the table (the By day charts). */
  children?: ReactNode;
}) {
  return (
    <FloorTable
      title={title}
      headers={[first, ...FIGURE_COLUMNS.map(([header]) => header)]}
      rows={rows.map((row) => ({
        key: row.key,
        cells: [row.name, ...FIGURE_COLUMNS.map(([, cell]) => cell(row.figures))],
      }))}
    >
      {children}
    </FloorTable>
  );
}
