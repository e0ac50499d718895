import { describe, expect, it } from 'vitest';
import {
  DARK_TEXT,
  LIGHT_TEXT,
  contrastRatio,
  parseHexColour,
  readableTextOn,
  relativeLuminance,
  tagBackground,
} from './colour-contrast';

describe('colour contrast', () => {
  it('parses #rgb and #rrggbb and nothing else', () => {
    expect(parseHexColour('#1a73e8')).toEqual([26, 115, 232]);
    expect(parseHexColour('#FFF')).toEqual([255, 255, 255]);
    expect(parseHexColour(' #000000 ')).toEqual([0, 0, 0]);
    for (const bad of ['red', '#12', '#1234567', 'rgb(1,2,3)', 'url(x)', '', '#ggg']) {
      expect(parseHexColour(bad), bad).toBeNull();
    }
  });

  it('uses the WCAG 2 luminance and ratio (black on white is 21:1)', () => {
    expect(relativeLuminance([0, 0, 0])).toBe(0);
    expect(relativeLuminance([255, 255, 255])).toBeCloseTo(1, 10);
    expect(contrastRatio(1, 0)).toBeCloseTo(21, 10);
    // #777777 on white is the classic 4.48:1.
    expect(contrastRatio(relativeLuminance([0x77, 0x77, 0x77]), 1)).toBeCloseTo(4.48, 2);
  });

  it.each([
    ['#d93025', LIGHT_TEXT],
    ['#1a73e8', LIGHT_TEXT],
    ['#5f6368', LIGHT_TEXT],
    ['#000000', LIGHT_TEXT],
    ['#ffd54f', DARK_TEXT],
    ['#f29900', DARK_TEXT],
    ['#ffffff', DARK_TEXT],
    ['#8bc34a', DARK_TEXT],
  ])('text on %s is %s and meets 4.5:1 where either can', (background, expected) => {
    const text = readableTextOn(background);
    expect(text).toBe(expected);
    const ratio = contrastRatio(
      relativeLuminance(parseHexColour(background)!),
      relativeLuminance(parseHexColour(text)!),
    );
    expect(ratio).toBeGreaterThanOrEqual(4.5);
  });

  it('a colour that is not hex is not used as a background', () => {
    expect(tagBackground('javascript:alert(1)')).toBeNull();
    expect(tagBackground('#abc')).toBe('#abc');
    expect(readableTextOn('not a colour')).toBe(DARK_TEXT);
  });
});
