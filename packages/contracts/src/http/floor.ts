import { z } from 'zod';

/** An agent's status on the floor (issue 39). */
export const FLOOR_STATUSES = [
  'available',
  'away',
  'ringing',
  'on_call',
  'wrap_up',
  'offline',
] as const;
export type FloorStatus = (typeof FLOOR_STATUSES)[number];

const Named = z.object({ id: z.number().int(), name: z.string() });

/** A lead waiting in the queue. */
export const FloorQueueEntrySchema = z.object({
  call_id: z.number().int(),
  label: z.string(),
  profile: Named.nullable(),
  team: Named.nullable(),
  waiting_since: z.string(),
});

/** An agent on the floor. */
export const FloorAgentSchema = z.object({
  id: z.number().int(),
  full_name: z.string(),
  role: z.string(),
  status: z.enum(FLOOR_STATUSES),
  since: z.string().nullable(),
  call: z
    .object({
      id: z.number().int(),
      lead_label: z.string().nullable(),
      answered_at: z.string().nullable(),
    })
    .nullable(),
});

/** Today's figures: counts, shares (0…1) and averages (seconds); null without calls to count. */
export const FloorKpisSchema = z.object({
  offered: z.number().int(),
  answered: z.number().int(),
  missed: z.number().int(),
  abandoned: z.number().int(),
  answer_rate: z.number().nullable(),
  average_speed_of_answer_seconds: z.number().nullable(),
  average_handle_seconds: z.number().nullable(),
  service_level: z.number().nullable(),
  service_level_seconds: z.number().int(),
});

/** One 15-minute interval of today. */
export const FloorIntervalSchema = z.object({
  start: z.string(),
  offered: z.number().int(),
  answered: z.number().int(),
  missed: z.number().int(),
  abandoned: z.number().int(),
  service_level: z.number().nullable(),
});

/** GET /api/v1/floor */
export const FloorSchema = z.object({
  time_zone: z.string(),
  date: z.string(),
  queue: z.array(FloorQueueEntrySchema),
  agents: z.array(FloorAgentSchema),
  kpis: FloorKpisSchema,
  intervals: z.array(FloorIntervalSchema),
});
export type Floor = z.infer<typeof FloorSchema>;
export type FloorAgent = z.infer<typeof FloorAgentSchema>;
export type FloorQueueEntry = z.infer<typeof FloorQueueEntrySchema>;
export type FloorKpis = z.infer<typeof FloorKpisSchema>;
export type FloorInterval = z.infer<typeof FloorIntervalSchema>;
