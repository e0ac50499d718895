import { describe, expect, it } from 'vitest';
import { NETWORK_GRADES, gradeOf } from './network-grade';

describe('the network grade of a MOS (issue 17)', () => {
  // Written from the issue: "Excellent > 4.2, Great > 4.1, Good > 3.7, Fair > 3.1, Degraded
  // otherwise"; a MOS on a boundary is not above it.
  it.each([
    [4.5, 'Excellent'],
    [4.21, 'Excellent'],
    [4.2001, 'Excellent'],
    [4.2, 'Great'],
    [4.15, 'Great'],
    [4.1001, 'Great'],
    [4.1, 'Good'],
    [3.9, 'Good'],
    [3.7001, 'Good'],
    [3.7, 'Fair'],
    [3.5, 'Fair'],
    [3.1001, 'Fair'],
    [3.1, 'Degraded'],
    [2.5, 'Degraded'],
    [1, 'Degraded'],
  ])('%d is %s', (mos, grade) => {
    expect(gradeOf(mos)).toBe(grade);
  });

  it('has the five grades, best first', () => {
    expect(NETWORK_GRADES).toEqual(['Excellent', 'Great', 'Good', 'Fair', 'Degraded']);
  });
});
