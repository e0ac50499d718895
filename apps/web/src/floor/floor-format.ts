/** How the floor and the reports write their figures. */
import { formatDuration } from '../ui/format';

/** A share (0…1) as a whole percentage, or a dash. */
export function percent(value: number | null): string {
  return value === null ? '–' : `${Math.round(value * 100)} %`;
}

/** Seconds as `mm:ss`, or a dash. */
export function seconds(value: number | null): string {
  return value === null ? '–' : formatDuration(value);
}
