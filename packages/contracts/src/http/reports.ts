import { z } from 'zod';
import { FloorKpisSchema } from './floor';

/** The longest range a report covers (days, both ends included). */
export const REPORT_MAX_DAYS = 366;

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date `YYYY-MM-DD` that exists (no 31 February). */
const ReportDate = (name: 'from' | 'to') =>
  z
    .string({ error: `The ${name} date must be written YYYY-MM-DD.` })
    .regex(DATE_PATTERN, { error: `The ${name} date must be written YYYY-MM-DD.` })
    .refine(
      (value) => {
        const date = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
      },
      { error: `The ${name} date does not exist.` },
    );

const dayNumber = (value: string) => Date.parse(`${value}T00:00:00Z`) / 86_400_000;

/** `from` and `to` (both included), days of the account's time zone. */
export const ReportRangeQuery = z
  .object({ from: ReportDate('from'), to: ReportDate('to') })
  .refine((range) => dayNumber(range.from) <= dayNumber(range.to), {
    error: 'The from date must not be after the to date.',
    path: ['to'],
  })
  .refine((range) => dayNumber(range.to) - dayNumber(range.from) < REPORT_MAX_DAYS, {
    error: `A report covers at most ${REPORT_MAX_DAYS} days.`,
    path: ['to'],
  });
export type ReportRangeQuery = z.infer<typeof ReportRangeQuery>;

/** The columns of `GET /api/v1/reports/calls.csv`, in their order (its header row). */
export const CALLS_CSV_COLUMNS = [
  'date_time',
  'direction',
  'lead',
  'number',
  'agent',
  'team',
  'profile',
  'status',
  'reason',
  'wait_seconds',
  'talk_seconds',
  'wrap_up_seconds',
  'disposition',
  'tag',
  'notes',
  'recording',
] as const;

/** The offered calls' figures of a group: the floor's, with their talk time. */
export const ReportFiguresSchema = FloorKpisSchema.omit({ service_level_seconds: true }).extend({
  talk_seconds: z.number().int(),
});
export type ReportFigures = z.infer<typeof ReportFiguresSchema>;

const NamedFigures = ReportFiguresSchema.extend({ id: z.number().int(), name: z.string() });

/** GET /api/v1/reports/summary */
export const ReportSummarySchema = z.object({
  time_zone: z.string(),
  from: z.string(),
  to: z.string(),
  service_level_seconds: z.number().int(),
  by_day: z.array(ReportFiguresSchema.extend({ day: z.string() })),
  by_team: z.array(NamedFigures),
  by_profile: z.array(NamedFigures),
  by_agent: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      /** Calls the agent took part in as the call's agent (any direction). */
      calls: z.number().int(),
      answered: z.number().int(),
      talk_seconds: z.number().int(),
      average_handle_seconds: z.number().nullable(),
    }),
  ),
  by_disposition: z.array(z.object({ disposition: z.string(), calls: z.number().int() })),
  by_tag: z.array(z.object({ tag: z.string(), calls: z.number().int() })),
});
export type ReportSummary = z.infer<typeof ReportSummarySchema>;
