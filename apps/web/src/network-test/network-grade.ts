/**
 * The network test's grade (issue 17): a mean opinion score graded Excellent > 4.2, Great > 4.1,
 * Good > 3.7, Fair > 3.1, Degraded otherwise (the floors are `NETWORK_GRADE_MOS_FLOORS`).
 */
import { NETWORK_GRADE_LOWEST, NETWORK_GRADE_MOS_FLOORS } from '../constants';

/** A grade of the network test, best first. */
export type NetworkGrade =
  (typeof NETWORK_GRADE_MOS_FLOORS)[number]['grade'] | typeof NETWORK_GRADE_LOWEST;

/** Every grade, best first. */
export const NETWORK_GRADES: readonly NetworkGrade[] = [
  ...NETWORK_GRADE_MOS_FLOORS.map((floor) => floor.grade),
  NETWORK_GRADE_LOWEST,
];

/** The grade of a MOS: the best whose floor it is above (a MOS on a floor takes the grade below). */
export function gradeOf(mos: number): NetworkGrade {
  return NETWORK_GRADE_MOS_FLOORS.find((floor) => mos > floor.above)?.grade ?? NETWORK_GRADE_LOWEST;
}
