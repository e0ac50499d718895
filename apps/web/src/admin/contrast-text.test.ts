import { describe, expect, it } from 'vitest';
import { contrastVerdict } from './contrast-text';

describe('contrastVerdict', () => {
  // Expected ratios from WCAG 2: #1a73e8 under white 4.51:1; #7a7a7a under dark text 4.30:1;
  // black under white 21:1.
  it.each([
    ['#1a73e8', 'Contrast 4.5:1 — readable', true],
    ['#7a7a7a', 'Contrast 4.3:1 — too low: pick a darker or lighter colour', false],
    ['#000000', 'Contrast 21.0:1 — readable', true],
  ])('%s: %s', (colour, text, readable) => {
    expect(contrastVerdict(colour)).toMatchObject({ text, readable });
  });

  it('says what a colour is when given something else', () => {
    expect(contrastVerdict('blue')).toMatchObject({ ratio: null, readable: false });
    expect(contrastVerdict('blue').text).toMatch(/hex colour/);
  });
});
